"""Python source holding Markdown fences inside its strings: a test of a Markdown renderer, as
a model writes it out whole (the fences inside must not end the block it is written in)."""

CODE_BLOCK_TEST = '''\
def test_code_block():
    text = """
`code`
```
code
```
"""
    assert convert(text) == "<p>`code`</p>\\n<pre><code>code</code></pre>"
'''
