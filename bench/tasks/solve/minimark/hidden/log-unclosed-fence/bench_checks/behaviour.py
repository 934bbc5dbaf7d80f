import minimark


def check_behaviour(module=minimark):
    convert = module.convert
    assert convert("# Title *here*") == "<h1>Title <em>here</em></h1>\n"
    assert convert("a **b** `c<d`") == "<p>a <strong>b</strong> <code>c&lt;d</code></p>\n"
    assert convert("- one\n- two") == "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
    assert convert("1. one\n2. two") == "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"
    assert convert("```py\nx = 1 < 2\n```") == (
        '<pre><code class="language-py">x = 1 &lt; 2\n</code></pre>\n'
    )
    assert convert("[home](/index.html)") == '<p><a href="/index.html">home</a></p>\n'
    assert convert("> hi\n\n***") == "<blockquote>\n<p>hi</p>\n</blockquote>\n<hr />\n"
