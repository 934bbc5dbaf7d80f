"""What every test of the Action starts from: the GitHub REST server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.action_world import TOKEN
from tests.helpers.github_server import GitHubServer


@pytest.fixture
def gh() -> Iterator[GitHubServer]:
    """GitHub's REST API as the Action meets it, answering to the job's token."""
    with GitHubServer(token=TOKEN) as server:
        yield server
