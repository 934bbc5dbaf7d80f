"""minimark: a small Markdown-to-HTML converter.

It covers the part of Markdown we actually write in project notes and READMEs:

* ATX headings (``# Title`` to ``###### Title``); setext headings are not supported
* paragraphs and hard line breaks (two trailing spaces, or a backslash)
* emphasis (``*em*``, ``_em_``) and strong emphasis (``**strong**``, ``__strong__``)
* inline code (`` `code` ``) and fenced code blocks (``` or ~~~, with a language)
* bullet lists (``-``, ``*``, ``+``) and ordered lists (``1.`` or ``1)``), nested by indenting
* block quotes and horizontal rules
* links ``[text](url "title")``, images ``![alt](src)`` and autolinks ``<https://...>``
* backslash escapes, and HTML escaping of everything else

Raw HTML in the input is escaped, never passed through.

Usage::

    python minimark.py README.md -o README.html
    python minimark.py --standalone --ids notes.md > notes.html
"""

import argparse
import re
import sys
from dataclasses import dataclass, field

__version__ = "0.4.2"

TAB_WIDTH = 4

# Characters that a backslash makes literal.
ESCAPABLE = set("\\`*_{}[]()#+-.!<>|~")

HTML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}

HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([\w+#.-]*)[ \t]*$")
RULE_RE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
BULLET_RE = re.compile(r"^( {0,3})([-*+])[ \t]+(.*)$")
ORDERED_RE = re.compile(r"^( {0,3})(\d{1,9})([.)])[ \t]+(.*)$")
QUOTE_RE = re.compile(r"^ {0,3}> ?(.*)$")
AUTOLINK_RE = re.compile(r"<((?:https?|ftp)://[^\s<>]+|mailto:[^\s<>]+)>")
LINK_TAIL_RE = re.compile(r"""\(\s*(<[^<>\n]*>|[^\s()]*)(?:\s+(?:"([^"]*)"|'([^']*)'))?\s*\)""")

PAGE_TEMPLATE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>{title}</title>
</head>
<body>
{body}</body>
</html>
"""


def escape_html(text):
    """Escape the characters that are special in HTML text and attribute values."""
    return "".join(HTML_ESCAPES.get(ch, ch) for ch in text)


def slugify(text):
    """An id for a heading: lower case, punctuation dropped, words joined with hyphens."""
    text = re.sub(r"[`*_\[\]()\\]", "", text)
    text = re.sub(r"[^\w\s-]", "", text.lower())
    return re.sub(r"[\s-]+", "-", text).strip("-") or "section"


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def strip_front_matter(text):
    """Split off a front matter block (``key: value`` lines between two ``---`` lines).

    Returns ``(meta, body)``; ``meta`` is empty when the text has no front matter.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    meta = {}
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return meta, "\n".join(lines[number + 1:])
        key, sep, value = line.partition(":")
        if not sep:
            # not front matter after all, just a document that starts with a rule
            return {}, text
        meta[key.strip().lower()] = value.strip().strip("\"'")
    return {}, text


# --- blocks ------------------------------------------------------------------


@dataclass
class Block:
    """One block of a document.

    ``kind`` is one of "heading", "paragraph", "code", "list", "quote" or "rule".
    Lists keep their items as lists of blocks; quotes keep theirs in ``children``.
    """

    kind: str
    text: str = ""
    level: int = 0
    lang: str = ""
    ordered: bool = False
    start: int = 1
    loose: bool = False
    items: list = field(default_factory=list)
    children: list = field(default_factory=list)


def _run_length(text, index, char):
    end = index
    while end < len(text) and text[end] == char:
        end += 1
    return end - index


def starts_block(line):
    """True if ``line`` begins a block other than a paragraph (so it ends a paragraph)."""
    return bool(
        FENCE_RE.match(line)
        or HEADING_RE.match(line)
        or RULE_RE.match(line)
        or QUOTE_RE.match(line)
        or BULLET_RE.match(line)
        or ORDERED_RE.match(line)
    )


class BlockParser:
    """Splits Markdown text into a list of :class:`Block`."""

    def __init__(self, text):
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = [line.expandtabs(TAB_WIDTH) for line in text.split("\n")]
        self.pos = 0

    def parse(self):
        blocks = []
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if not line.strip():
                self.pos += 1
                continue
            block = (
                self._fence(line)
                or self._heading(line)
                or self._rule(line)
                or self._quote(line)
                or self._list(line)
                or self._paragraph()
            )
            blocks.append(block)
        return blocks

    def _next_nonblank(self):
        index = self.pos
        while index < len(self.lines) and not self.lines[index].strip():
            index += 1
        return index if index < len(self.lines) else None

    def _fence(self, line):
        match = FENCE_RE.match(line)
        if not match:
            return None
        marker, lang = match.group(1), match.group(2)
        opened_at = self.pos
        self.pos += 1
        body = []
        while self.pos < len(self.lines):
            current = self.lines[self.pos].strip()
            if len(current) >= len(marker) and set(current) == {marker[0]}:
                self.pos += 1
                break
            body.append(self.lines[self.pos])
            self.pos += 1
        else:
            while body and not body[-1].strip():
                body.pop()
            print(f"minimark: warning: code block opened on line {opened_at + 1} is never closed",
                  file=sys.stderr)
        return Block("code", text="\n".join(body), lang=lang)

    def _heading(self, line):
        match = HEADING_RE.match(line)
        if not match:
            return None
        self.pos += 1
        return Block("heading", text=match.group(2).strip(), level=len(match.group(1)))

    def _rule(self, line):
        if not RULE_RE.match(line):
            return None
        self.pos += 1
        return Block("rule")

    def _quote(self, line):
        if not QUOTE_RE.match(line):
            return None
        inner = []
        while self.pos < len(self.lines):
            match = QUOTE_RE.match(self.lines[self.pos])
            if not match:
                break
            inner.append(match.group(1))
            self.pos += 1
        return Block("quote", children=BlockParser("\n".join(inner)).parse())

    def _list(self, line):
        first = BULLET_RE.match(line) or ORDERED_RE.match(line)
        if not first:
            return None
        pattern = first.re
        ordered = pattern is ORDERED_RE
        block = Block("list", ordered=ordered, start=int(first.group(2)) if ordered else 1)
        while self.pos < len(self.lines):
            match = pattern.match(self.lines[self.pos])
            if not match:
                break
            text = match.group(match.lastindex)
            offset = len(match.group(0)) - len(text)
            block.items.append(self._list_item(text, offset, pattern))
            # blank lines between two items make the list loose
            blank_from = self.pos
            following = self._next_nonblank()
            if following is None or not pattern.match(self.lines[following]):
                break
            if following > blank_from:
                block.loose = True
            self.pos = following
        return block

    def _list_item(self, text, offset, pattern):
        content = [text]
        self.pos += 1
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if not line.strip():
                # a blank line only continues the item if indented text follows it
                following = self._next_nonblank()
                if following is not None and indent_of(self.lines[following]) >= 2:
                    content.extend([""] * (following - self.pos))
                    self.pos = following
                    continue
                break
            if indent_of(line) >= 2:
                content.append(line[min(indent_of(line), offset):])
            elif pattern.match(line) or starts_block(line):
                break
            else:
                content.append(line.strip())  # lazy continuation of the paragraph
            self.pos += 1
        return BlockParser("\n".join(content)).parse()

    def _paragraph(self):
        lines = []
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if not line.strip() or (lines and starts_block(line)):
                break
            lines.append(line.lstrip())
            self.pos += 1
        return Block("paragraph", text="\n".join(lines).rstrip())


def parse_blocks(text):
    """Parse Markdown ``text`` into a list of blocks."""
    return BlockParser(text).parse()


# --- inline markup -----------------------------------------------------------


def _skip_code_span(text, index):
    """Index just past the code span starting at ``index``, or None if it is not closed."""
    run = _run_length(text, index, "`")
    search = index + run
    while True:
        end = text.find("`" * run, search)
        if end == -1:
            return None
        if _run_length(text, end, "`") == run:
            return end + run
        search = end + _run_length(text, end, "`")


def _find_closing(text, start, char, size):
    """Where the emphasis run of ``size`` ``char`` opened just before ``start`` closes.

    Returns the index of the closing run, or -1.
    """
    index = start
    while index < len(text):
        ch = text[index]
        if ch == "\\":
            index += 2
            continue
        if ch == "`":
            end = _skip_code_span(text, index)
            index = end if end is not None else index + _run_length(text, index, "`")
            continue
        if ch != char:
            index += 1
            continue
        run = _run_length(text, index, char)
        after = text[index + run] if index + run < len(text) else ""
        can_close = index > start and not text[index - 1].isspace()
        if char == "_" and after.isalnum():
            can_close = False
        if can_close and run == size:
            return index
        if can_close and run == 3:
            return index + run - size
        index += run
    return -1


def _find_label_end(text, start):
    """Index of the ``]`` that closes the ``[`` at ``start``, or -1."""
    depth = 0
    index = start
    while index < len(text):
        ch = text[index]
        if ch == "\\":
            index += 2
            continue
        if ch == "`":
            end = _skip_code_span(text, index)
            if end is not None:
                index = end
                continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def _anchor(href, inner, title=None):
    attrs = f' href="{href}"'
    if title:
        attrs += f' title="{escape_html(title)}"'
    return f"<a{attrs}>{inner}</a>"


def _image(src, alt, title=None):
    attrs = f' src="{escape_html(src)}" alt="{escape_html(alt)}"'
    if title:
        attrs += f' title="{escape_html(title)}"'
    return f"<img{attrs} />"


def _plain_text(text):
    """The text of inline markup with the markup removed (for alt text and ids)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\\(.)", r"\1", text)
    return re.sub(r"[`*_]", "", text)


def _match_link(text, index):
    """Parse ``[label](url "title")`` at ``index``: (label, url, title, end) or None."""
    label_end = _find_label_end(text, index)
    if label_end == -1:
        return None
    tail = LINK_TAIL_RE.match(text, label_end + 1)
    if not tail:
        return None
    url = tail.group(1)
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    title = tail.group(2) if tail.group(2) is not None else tail.group(3)
    return text[index + 1:label_end], url, title, tail.end()


def render_inline(text):
    """Render the inline markup of one block's text as HTML."""
    out = []
    index = 0
    length = len(text)
    while index < length:
        ch = text[index]

        if ch == "\\" and index + 1 < length:
            nxt = text[index + 1]
            if nxt in ESCAPABLE:
                out.append(escape_html(nxt))
                index += 2
                continue
            if nxt == "\n":
                out.append("<br />\n")
                index += 2
                continue

        if ch == "`":
            end = _skip_code_span(text, index)
            run = _run_length(text, index, "`")
            if end is None:
                out.append(ch * run)
                index += run
                continue
            code = text[index + run:end - run].replace("\n", " ")
            if len(code) > 1 and code.startswith(" ") and code.endswith(" ") and code.strip():
                code = code[1:-1]
            out.append(f"<code>{escape_html(code)}</code>")
            index = end
            continue

        if ch == "!" and text.startswith("[", index + 1):
            link = _match_link(text, index + 1)
            if link:
                label, url, title, end = link
                out.append(_image(url, _plain_text(label), title))
                index = end
                continue

        if ch == "[":
            link = _match_link(text, index)
            if link:
                label, url, title, end = link
                out.append(_anchor(url, render_inline(label), title))
                index = end
                continue

        if ch == "<":
            match = AUTOLINK_RE.match(text, index)
            if match:
                url = match.group(1)
                out.append(_anchor(url, escape_html(url.removeprefix("mailto:"))))
                index = match.end()
                continue

        if ch in "*_":
            run = _run_length(text, index, ch)
            size = 1 if run == 1 else 2
            after = text[index + size] if index + size < length else ""
            before = text[index - 1] if index else ""
            opens = after and not after.isspace() and not (ch == "_" and before.isalnum())
            close = _find_closing(text, index + size, ch, size) if opens else -1
            if close == -1:
                out.append(ch * run)
                index += run
                continue
            tag = "em" if size == 1 else "strong"
            out.append(f"<{tag}>{render_inline(text[index + size:close])}</{tag}>")
            index = close + size
            continue

        if ch == " ":
            run = _run_length(text, index, " ")
            if index + run < length and text[index + run] == "\n":
                out.append("<br />\n" if run >= 2 else "\n")
                index += run + 1
                continue

        out.append(escape_html(ch))
        index += 1
    return "".join(out)


# --- HTML --------------------------------------------------------------------


class HtmlRenderer:
    """Turns blocks into HTML.

    heading_ids: give every heading an ``id`` made from its text (unique in the document).
    code_class_prefix: prefix of the class put on fenced code with a language.
    """

    def __init__(self, heading_ids=False, code_class_prefix="language-"):
        self.heading_ids = heading_ids
        self.code_class_prefix = code_class_prefix
        self._used_ids = {}

    def unique_id(self, text):
        slug = slugify(_plain_text(text))
        count = self._used_ids.get(slug, 0)
        self._used_ids[slug] = count + 1
        return slug if count == 0 else f"{slug}-{count}"

    def render(self, blocks):
        self._used_ids = {}
        html = self.render_blocks(blocks)
        return html + "\n" if html else ""

    def render_blocks(self, blocks):
        return "\n".join(self.render_block(block) for block in blocks)

    def render_block(self, block):
        method = getattr(self, f"_render_{block.kind}", None)
        if method is None:
            raise ValueError(f"unknown block kind: {block.kind!r}")
        return method(block)

    def _render_heading(self, block):
        tag = f"h{block.level}"
        if self.heading_ids:
            return f'<{tag} id="{self.unique_id(block.text)}">{render_inline(block.text)}</{tag}>'
        return f"<{tag}>{render_inline(block.text)}</{tag}>"

    def _render_paragraph(self, block):
        return f"<p>{render_inline(block.text)}</p>"

    def _render_code(self, block):
        code = escape_html(block.text)
        if code:
            code += "\n"
        if block.lang:
            lang = escape_html(block.lang)
            return f'<pre><code class="{self.code_class_prefix}{lang}">{code}</code></pre>'
        return f"<pre><code>{code}</code></pre>"

    def _render_rule(self, block):
        return "<hr />"

    def _render_quote(self, block):
        inner = self.render_blocks(block.children)
        return f"<blockquote>\n{inner}\n</blockquote>" if inner else "<blockquote>\n</blockquote>"

    def _render_list(self, block):
        tag = "ol" if block.ordered else "ul"
        lines = [f"<{tag}>"]
        for item in block.items:
            lines.append(f"<li>{self._render_item(item, block.loose)}</li>")
        lines.append(f"</{tag}>")
        return "\n".join(lines)

    def _render_item(self, blocks, loose):
        if not blocks:
            return ""
        if loose:
            return "\n" + self.render_blocks(blocks) + "\n"
        parts = []
        for position, block in enumerate(blocks):
            if block.kind == "paragraph":
                parts.append(render_inline(block.text))
            else:
                parts.append("\n" + self.render_block(block))
                if position == len(blocks) - 1:
                    parts.append("\n")
        return "".join(parts)


def headings(blocks):
    """(level, text) of every top-level heading in ``blocks``."""
    return [(block.level, block.text) for block in blocks if block.kind == "heading"]


def convert(text, heading_ids=False):
    """Convert Markdown ``text`` to an HTML fragment."""
    return HtmlRenderer(heading_ids=heading_ids).render(parse_blocks(text))


def convert_file(path, heading_ids=False, standalone=False, title=None):
    """Read a Markdown file and return its HTML (a whole page if ``standalone``)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    meta, body = strip_front_matter(text)
    html = convert(body, heading_ids=heading_ids)
    if not standalone:
        return html
    title = title or meta.get("title") or _first_heading(body) or str(path)
    return PAGE_TEMPLATE.format(title=escape_html(title), body=html)


def _first_heading(text):
    found = headings(parse_blocks(text))
    return _plain_text(found[0][1]) if found else None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="minimark", description="Convert Markdown to HTML.")
    parser.add_argument("input", nargs="?", help="Markdown file to read (default: stdin)")
    parser.add_argument("-o", "--output", help="write the HTML to this file instead of stdout")
    parser.add_argument("--ids", action="store_true", help="give headings id attributes")
    parser.add_argument("--standalone", action="store_true", help="write a complete HTML page")
    parser.add_argument("--title", help="page title for --standalone")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    args = parser.parse_args(argv)

    if args.input:
        try:
            html = convert_file(args.input, heading_ids=args.ids,
                                standalone=args.standalone, title=args.title)
        except OSError as exc:
            print(f"minimark: {exc}", file=sys.stderr)
            return 1
    else:
        meta, body = strip_front_matter(sys.stdin.read())
        html = convert(body, heading_ids=args.ids)
        if args.standalone:
            title = args.title or meta.get("title") or _first_heading(body) or "Untitled"
            html = PAGE_TEMPLATE.format(title=escape_html(title), body=html)

    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(html)
    else:
        sys.stdout.write(html)
    return 0


if __name__ == "__main__":
    sys.exit(main())
