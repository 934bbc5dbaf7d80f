"""A function that escapes one value it writes into HTML and not another: the shape of a
request to treat the bare one like the rest (minimark/escape-href of the own tasks)."""

MARKUP = """\
def escape(text):
    return text.replace("&", "&amp;").replace('"', "&quot;")


def link(url, label, title=None):
    attrs = f' href="{url}"'
    if title:
        attrs += f' title="{escape(title)}"'
    return f"<a{attrs}>{label}</a>"
"""
ESCAPED = MARKUP.replace('href="{url}"', 'href="{escape(url)}"')
ESCAPE = (
    "Link URLs are written into the href attribute without escaping: escape the url like the "
    "rest of the HTML."
)
MARKUP_TESTS = """\
from markup import link


def test_link():
    assert link("/a", "a") == '<a href="/a">a</a>'
"""
