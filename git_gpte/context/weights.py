"""The ranking's weights in one table: how much each signal counts (see rank.py).

The values were set by hand against locbench; tuning them (leave-one-repository-out) means
passing another table to ``rank`` (``dataclasses.replace(WEIGHTS, mention=0.8)``), not editing
the signals. What each measure is made of stays with the measure: BM25's k1 and b and the
weight of path terms in rank_signals.py, PageRank's restart and iterations in links.py, and
the numbers of files linked and ranked by chunk in rank.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Weights:
    """Every weight of the ranking. A file's score is

        (lexical match / best file's lexical match + its lifts) * its prior
        + its prior * (identifier uses + symbol_links * its share of the link graph's PageRank)

    and a chunk's is set from its file's score and its own relevance (the last group)."""

    # The request's words below its first line count this much (the first line's count 1).
    body_term: float = 0.6

    # Lifts of a file, added to its lexical match (1.0 = the best file's) before the prior.
    mention: float = 1.0  # the request names the file by path, file name or dotted module
    strong_identifier: float = 0.6  # the file defines an identifier the request spells as code
    weak_identifier: float = 0.2  # ... names as a plain word (both shared among its definers)
    name: float = 0.4  # the file's name is a word of the request (``callers`` -> _callers.py)
    recent: float = 1.0  # times the file's recency weight (recency.py: the latest commits)
    # Times the lift of earlier commits phrased like the request (past.py). Off: on 427 tasks
    # of 22 repositories it moved coverage within a point either way at every weight tried
    # (0.3, 0.5, 1, and only for files matching the request), Go/JS/TS down 1 at 8k-32k at 1.
    past: float = 0.0
    # Times a request term's weight: the repository's other forms of a word of the request's
    # first line (related.py: ``validation`` -> ``validate``). On 427 tasks of 22 repositories
    # 0.2 covered +1.0 / +0.2 / -0.4 / 0 points at 4k / 8k / 16k / 32k, chosen for every
    # repository left out (Python +1.4 / +0.5 / -1.0 / 0); 0.3, 0.5 and 1 lost more at 16k.
    related: float = 0.2
    # A request about typos or spelling: the misspellings the files hold (typos.py, codespell's
    # dictionary) join it as terms of this weight (a first-line word's is 1).
    misspelling: float = 1.0
    # A request naming a human language ("fix russian E.164 error message") gets that
    # language's locale codes as terms (locales.py: "ru" names translations/ru/ru.go), times
    # the weight of the word naming it.
    locale: float = 1.0
    # A request naming a version number ("prep for 0.8", "Release 2.4.2", "This is 4.0-dev")
    # is a release or a bump: the files holding the version (setup.py, __init__.py, docs/conf.py)
    # change. The term "version" joins it at this weight. On 427 tasks of 22 repositories 5
    # task-budgets gained, none lost (0.5 and 1 alike), chosen for every repository left out.
    version_term: float = 0.5
    # ... and the files earlier commits naming a version number changed are lifted by this
    # much (the best 1; past.release_weights): where the project's releases are made, which
    # "version" alone does not find where the code says it everywhere (alembic's migrations).
    # On 427 tasks of 22 repositories 2 task-budgets gained, none lost (0.5 and 1 alike); on
    # 10 Python projects outside the pool 4 tasks gained at 4k-16k, none lost.
    release: float = 0.5
    # A request reverting a commit ("This reverts commit 3f9f659.", 'Revert "subject"') points
    # at the files that commit changed, as naming them does (reverted.py).
    reverted: float = 1.0
    # A traceback or an error message in the request naming a line of the file (places.py)
    # points at it too (an issue's pasted traceback). 0 here and for chunk_place: not read
    # (heal and a review pin those lines already, and rank as before).
    place: float = 1.0
    # A request of a kind that changes lines it does not quote points at the files stating
    # them by this much (stated.py): a release or a version bump ("Version 0.14.0", "- bump
    # version num") at the lines assigning the project's version, a change of the Python
    # versions supported at the classifiers and the code checking them, a new year at the
    # copyright. For releases, on 427
    # tasks of 22 repositories 0.5 gained 2 task-budgets and lost none, 1 gained 2 and lost 1;
    # 0.5 chosen for 21 repositories left out (on 14 Python projects outside the pool, 0.5
    # gained 4 and 1 gained 7, neither lost any).
    stated: float = 0.5

    # Priors: a file's score is multiplied by its kind's factor (code: 1). Files that are not
    # source get next to nothing unless the request is about them: on 427 tasks of 22
    # repositories (bench/context_pool.py) tests, prose and configuration at 0.35 / 0.3 / 0.4
    # covered 82.0 % at 16k, at 0.05 each 84.5 % (chosen for every repository left out), and
    # 83.4 % with docs and configuration kept at 0.45 / 0.4 when the request is about them:
    # locbench's gold is source only, so it cannot reward the docs a docs request needs.
    test: float = 0.05  # a test, unless the request asks for tests
    # ... instead, when the request asks for tests: as asked docs and configuration are (see
    # rank_signals.file_prior); 1.0 ranks them as source, as before.
    test_asked: float = 0.4
    prose: float = 0.05  # docs, changelogs
    prose_asked: float = 0.45  # ... instead, when the request asks for documentation
    config: float = 0.05  # configuration, and docs folders unless the request asks for docs
    config_asked: float = 0.4  # ... instead, when the request is about configuration, CI, build
    # A docs folder's own code, though (Sphinx's conf.py: the version, the theme, intersphinx,
    # the copyright year; the examples its pages include) is code a request may change without
    # saying "docs": on 427 tasks of 22 repositories 9 task-budgets gained and 2 lost at 0.3,
    # chosen for 19 repositories left out (Python 56.1 / 74.1 / 84.9 / 92.0 from 56.1 / 73.6 /
    # 83.5 / 90.6); 0.4 the same 9 / 2, 0.2 4 / 1: below pack.CHUNK_MIN_PRIOR its excerpts come
    # after all the source. Outside the pool (10 Python projects) 9 gained, 4 lost.
    docs_code: float = 0.3
    # A tool's configuration written in a programming language (``vite.config.ts``,
    # ``eslint.config.js``, ``website/docusaurus.config.js``, a GitHub Action's own code) is
    # code a request may change without saying "config" ("include sources in sourcemaps",
    # "publish from 'main' rather than 'master'", "increase wdio timeout"). On 1,243 tasks of 55
    # repositories 7 task-budgets gained and none lost at 0.3 (against 0.05); 0.5 gained 12
    # and lost 2, 0.7 gained 13 and lost 1. Then, against 0.3 on 2,075 tasks of 97
    # repositories, 42 of them scored after 0.3 was chosen: 0.7 gained 14 task-budgets (8 on
    # those 42) and lost 1 (zod's "Instanceof issue fatal", whose squashed body says "Fix
    # lint": a linter's configuration took the place of source lines); 0.5 gained 10, lost 1.
    config_code: float = 0.7
    # Type stubs and declarations (``.pyi``, ``.d.ts``): the types of code that lives elsewhere,
    # unless the request is about types ("Fix TypeScript types", "add type hints"). As code
    # they took 1.1-2.8k tokens of a 4k budget (multidict's __init__.pyi, execa's index.d.ts);
    # at these, on 2,652 tasks of 126 repositories, 22 task-budgets gained and 1 was lost.
    stub: float = 0.05
    stub_asked: float = 0.4
    vendored: float = 0.4  # vendored code, unless the request names the vendored package
    built: float = 0.2  # build output kept in the repository (dist/, build/)
    data: float = 0.0  # lock files, logs, minified code, unless the request names the file
    # A file or chunk whose text copies a better-ranked one (a generated copy of the source:
    # deno/lib/types.ts of src/types.ts) adds nothing the first does not: its score (a file's
    # prior too) times this. A file whose code is the other's, its import specifiers spelled
    # differently (rank._code_key), is a copy: on 427 tasks of 22 repositories 2 task-budgets
    # gained (zod at 8k and 32k), none lost.
    copy: float = 0.0
    # A file a script of the repository generates and that script score at least this much
    # times the other (generated.py): they change in the same commits. Found on fastify
    # (outside the pool): 2 tasks gained at 32k, none lost; no pool task has such a pair, and
    # the pool's selections did not change.
    generated: float = 0.9

    # Added after the prior (times it): relevance that follows links between files.
    identifier_use: float = 0.3  # the file uses an identifier the request spells as code (a
    # rename touches every use), divided by the square root of the number of files using it
    symbol_links: float = 0.35  # times the file's share of the link graph's PageRank
    import_link: float = 1.0  # weight of a link made by an import
    use_link: float = 0.5  # ... by the use of a name another file defines (shared among them)

    # Fusion: the files' order from their scores above, fused by reciprocal rank with their
    # order by lexical match alone (times the prior), weighing that one ``fusion`` (0: not
    # fused); ``fusion_k`` damps the ranks (1 / (k + rank)). The two orders are close to
    # complementary on repositories the weights were not tuned on (see rank._fused).
    fusion: float = 0.0
    fusion_k: float = 10.0

    # Chunks of the best files. A chunk's score is
    #     (file score / best file score) ** file_exponent * (base + relevance)
    #     + chunk_mix * file prior * chunk BM25 / best chunk BM25,
    # relevance mixing the chunk's BM25 over the best chunk's and over its file's best chunk's
    # (in_file_norm of the latter). A file's module header gets a higher base (imports change
    # with the code that uses them). A chunk that matches nothing keeps only a trace of its
    # file's score: it orders such chunks by file, but the matching chunks of other good files
    # come first (a top file's unrelated functions are not worth its neighbours' relevant ones;
    # whole files, not stray chunks, serve a vague request).
    file_exponent: float = 1.0
    chunk_base: float = 0.01
    header_base: float = 0.35
    in_file_norm: float = 0.6
    chunk_mix: float = 0.5
    member_spread: float = 0.3  # share of a class header's relevance given to each member
    # Bonuses (in BM25 units) of a chunk defining, or else using, an identifier the request
    # names. A use weighs more: the defining chunk already matches the name's words, while a
    # request that names a function or parameter usually changes how it is used too (renames,
    # new arguments); measured on locbench: 0.5 for uses lost three tasks at 8k against 1.5.
    chunk_define: float = 1.0
    chunk_use: float = 1.5
    chunk_recent: float = 1.0  # a chunk holding lines the latest commits wrote
    chunk_reverted: float = 3.0  # ... lines the commit the request reverts wrote or took out
    chunk_place: float = 3.0  # ... a line a traceback or error message in the request names
    chunk_stated: float = 3.0  # ... a line stating what the request asks to change (stated.py)


WEIGHTS = Weights()
