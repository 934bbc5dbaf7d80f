"""The one status comment on the issue, created once and edited as the work progresses.

A re-run (a ``/gpte`` comment after the label, every push to a pull request) edits the status
comment the previous run left, so an issue or pull request carries one such comment, not one per
run. A failure to find, post or edit it is reported as a warning and never stops the work: the
pull request is what matters, the comment is news about it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import GitHubError
from .client import GitHubClient

MARKER = "<!-- git-gpte-status -->"


class StatusComment:
    def __init__(
        self,
        client: GitHubClient,
        number: int,
        run_url: str | None,
        warn: Callable[[str], None],
    ) -> None:
        self.client = client
        self.number = number
        self.run_url = run_url
        self.warn = warn
        self.comment_id: int | None = None
        self.looked_up = False
        self.last: str | None = None

    def render(self, text: str) -> str:
        lines = [MARKER, f"**git-gpte** · {text}"]
        if self.run_url:
            lines += ["", f"[Workflow run]({self.run_url})"]
        return "\n".join(lines)

    def update(self, text: str) -> None:
        body = self.render(text)
        if body == self.last:
            return
        try:
            if not self.looked_up:
                self.looked_up = True
                self.comment_id = self.client.find_own_comment(self.number, MARKER)
            if self.comment_id is None:
                self.comment_id = self.client.create_comment(self.number, body)
            else:
                self.client.edit_comment(self.comment_id, body)
            self.last = body
        except GitHubError as exc:
            self.warn(f"could not update the status comment: {exc.render()}")
