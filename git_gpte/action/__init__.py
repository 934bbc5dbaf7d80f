"""The GitHub Action: an issue, comment or pull request event in, a branch and a pull request out.

The modules are split by what they do so each can be read (and tested) alone:

- :mod:`.settings`  the runner's environment and the action's inputs, read once
- :mod:`.event`     the webhook payload turned into a trigger (or a reason to do nothing)
- :mod:`.gate`      who may spend LLM money: association, collaborator permission, bots, state
- :mod:`.sanitize`  issue text made safe to hand to a model: comments, invisible characters, length
- :mod:`.commands`  workflow commands, outputs and the job summary
- :mod:`.client`    the few GitHub REST calls, through PyGithub
- :mod:`.remote`    fetch and push with the token in the environment, never in ``.git/config``
- :mod:`.status`    the one status comment, edited as work progresses
- :mod:`.report`    texts: pull request body, summaries
- :mod:`.flow`      the steps composed: issue -> improve (+ heal) -> push -> pull request
"""
