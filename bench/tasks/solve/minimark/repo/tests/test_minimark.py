import pytest

import minimark
from minimark import convert


def test_headings():
    assert convert("# Title") == "<h1>Title</h1>\n"
    assert convert("### Closed ###") == "<h3>Closed</h3>\n"
    assert convert("## C#") == "<h2>C#</h2>\n"
    assert convert("#NoSpace") == "<p>#NoSpace</p>\n"


def test_heading_ids_are_unique():
    html = convert("# Intro\n\n## Intro\n\n## Set *up*", heading_ids=True)
    assert '<h1 id="intro">' in html
    assert '<h2 id="intro-1">' in html
    assert '<h2 id="set-up">' in html


def test_paragraphs_and_line_breaks():
    html = convert("one\ntwo  \nthree\n\nfour")
    assert html == "<p>one\ntwo<br />\nthree</p>\n<p>four</p>\n"


def test_emphasis():
    assert minimark.render_inline("*a* _b_ **c** __d__") == (
        "<em>a</em> <em>b</em> <strong>c</strong> <strong>d</strong>"
    )
    assert minimark.render_inline("***x***") == "<strong><em>x</em></strong>"
    assert minimark.render_inline("snake_case_name") == "snake_case_name"
    assert minimark.render_inline("2 * 3 * 4") == "2 * 3 * 4"


def test_inline_code_is_escaped():
    assert minimark.render_inline("use `a < b && c`") == "use <code>a &lt; b &amp;&amp; c</code>"
    assert minimark.render_inline("`` a`b ``") == "<code>a`b</code>"


def test_backslash_escapes():
    assert minimark.render_inline(r"\*not\* \[x\]") == "*not* [x]"


def test_html_is_escaped():
    assert convert("<b>hi</b> & bye") == "<p>&lt;b&gt;hi&lt;/b&gt; &amp; bye</p>\n"


def test_links_and_images():
    assert convert("[home](https://example.org)") == (
        '<p><a href="https://example.org">home</a></p>\n'
    )
    assert 'title="The docs"' in convert('[docs](/docs "The docs")')
    assert convert("![a *cat*](cat.png)") == '<p><img src="cat.png" alt="a cat" /></p>\n'
    assert convert("<https://example.org>") == (
        '<p><a href="https://example.org">https://example.org</a></p>\n'
    )


def test_fenced_code():
    html = convert("```python\nif a < b:\n    pass\n```")
    assert html == (
        '<pre><code class="language-python">if a &lt; b:\n    pass\n</code></pre>\n'
    )
    assert convert("~~~\n~~~") == "<pre><code></code></pre>\n"


def test_bullet_list_with_nesting():
    html = convert("- one\n- two\n  - two a\n- three")
    assert html == (
        "<ul>\n<li>one</li>\n<li>two\n<ul>\n<li>two a</li>\n</ul>\n</li>\n<li>three</li>\n</ul>\n"
    )


def test_loose_ordered_list():
    html = convert("1. first\n\n2. second")
    assert html == "<ol>\n<li>\n<p>first</p>\n</li>\n<li>\n<p>second</p>\n</li>\n</ol>\n"


def test_quote_and_rule():
    assert convert("> quoted\n> text\n\n---") == (
        "<blockquote>\n<p>quoted\ntext</p>\n</blockquote>\n<hr />\n"
    )


def test_front_matter():
    meta, body = minimark.strip_front_matter("---\ntitle: Notes\n---\n# Hi\n")
    assert meta == {"title": "Notes"}
    assert body == "# Hi\n"
    assert minimark.strip_front_matter("---\n\ntext")[0] == {}


@pytest.mark.parametrize("text, slug", [("Hello, World!", "hello-world"), ("***", "section")])
def test_slugify(text, slug):
    assert minimark.slugify(text) == slug


def test_cli_standalone(tmp_path):
    source = tmp_path / "notes.md"
    source.write_text("# My notes\n\nHello.\n", encoding="utf-8")
    target = tmp_path / "notes.html"
    assert minimark.main([str(source), "-o", str(target), "--standalone"]) == 0
    page = target.read_text(encoding="utf-8")
    assert "<title>My notes</title>" in page
    assert "<p>Hello.</p>" in page
