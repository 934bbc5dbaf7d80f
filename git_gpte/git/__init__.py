"""The git layer: repository queries and commit building. Knows nothing of LLMs."""

from .branch import advance_branch, branch_from_prompt, create_branch, slugify, unique_branch
from .commit import FileChange, build_commit, format_message, summary_line
from .repo import Repository, TreeEntry, decode_text, is_binary

__all__ = [
    "FileChange",
    "Repository",
    "TreeEntry",
    "advance_branch",
    "branch_from_prompt",
    "build_commit",
    "create_branch",
    "decode_text",
    "format_message",
    "is_binary",
    "slugify",
    "summary_line",
    "unique_branch",
]
