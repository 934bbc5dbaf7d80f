"""A small stateful GitHub REST v3 server on 127.0.0.1, for PyGithub pointed at it by ``base_url``.

It keeps repositories, issues, comments, labels, collaborator permissions and pull requests in
memory and answers the endpoints the action uses (plus what PyGithub calls on the way) with the
fields PyGithub reads. Every request is recorded so tests can assert what happened — and what did
not ("no comment posted", "no pull request opened"). When a repository is given the path of a
bare git repository (the test's ``origin``), opening a pull request checks that the head and base
branches exist there, as GitHub does.

Standalone (``--record`` keeps a JSON-lines request log):
``python -m tests.helpers.github_server --repo octo/demo --port 8765 --record log.jsonl``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

NOW = "2026-01-01T00:00:00Z"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    headers: dict[str, str]


@dataclass
class RepoState:
    owner: str
    name: str
    default_branch: str = "main"
    private: bool = False
    git_dir: str | None = None  # bare repository standing in for the GitHub remote
    permissions: dict[str, str] = field(default_factory=dict)  # login -> admin/write/read/none
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)  # issues and PRs share numbers
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    reviews: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> review ("_pull")

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def branch_sha(self, branch: str) -> str | None:
        if self.git_dir is None:
            return "0" * 40
        proc = subprocess.run(
            [
                "git",
                "--git-dir",
                self.git_dir,
                "rev-parse",
                "--verify",
                "-q",
                f"refs/heads/{branch}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        return proc.stdout.strip() or None


@dataclass
class AppState:
    """A GitHub App: its id, the public half of its key, and one installation."""

    app_id: str
    public_key_pem: str
    installation_id: int
    repositories: set[str]  # full names (lower case) the installation covers
    minted: list[str] = field(default_factory=list)  # installation tokens handed out


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


class GitHubServer:
    """``with GitHubServer() as gh: gh.add_repo("octo/demo"); ... gh.url`` is the API base URL."""

    def __init__(
        self,
        token: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        record: str | None = None,
    ) -> None:
        self.token = token  # when set, requests must carry it (or an App's installation token)
        self.apps: dict[str, AppState] = {}
        self.record = record  # a JSON-lines request log for standalone runs (no Authorization)
        self.repos: dict[str, RepoState] = {}
        self.requests: list[Recorded] = []
        self.comments: dict[int, dict[str, Any]] = {}  # id -> comment (with "_repo", "_issue")
        # id -> comment on lines of a pull request's diff (with "_repo", "_pull")
        self.review_comments: dict[int, dict[str, Any]] = {}
        self.failures: list[tuple[str, re.Pattern[str], int, str]] = []
        self._ids = itertools.count(1001)
        self._lock = threading.RLock()
        handler = type("Handler", (_Handler,), {"api": self})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> GitHubServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> GitHubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ state set-up
    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        git_dir: str | None = None,
        private: bool = False,
    ) -> RepoState:
        owner, name = full_name.split("/", 1)
        state = RepoState(owner, name, default_branch, private, git_dir)
        state.permissions[owner] = "admin"
        self.repos[full_name.lower()] = state
        return state

    def add_app(
        self,
        app_id: str,
        public_key_pem: str,
        installed_on: tuple[str, ...],
        *,
        installation: int = 4321,
    ) -> AppState:
        """A GitHub App installed on ``installed_on``; JWTs must be signed with the matching
        private key, and the installation tokens it mints are then accepted like ``token``."""
        app = AppState(str(app_id), public_key_pem, installation, {r.lower() for r in installed_on})
        self.apps[app.app_id] = app
        return app

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        self.repos[full_name.lower()].permissions[login] = permission

    def add_issue(
        self,
        full_name: str,
        number: int,
        title: str,
        body: str | None = "",
        *,
        user: str = "octocat",
        user_type: str = "User",
        state: str = "open",
        locked: bool = False,
        labels: tuple[str, ...] = (),
        association: str = "OWNER",
    ) -> dict[str, Any]:
        repo = self.repos[full_name.lower()]
        issue = {
            "id": next(self._ids),
            "number": number,
            "title": title,
            "body": body,
            "state": state,
            "locked": locked,
            "user": self._user(user, user_type),
            "labels": [self._label(name) for name in labels],
            "author_association": association,
            "comments": 0,
            "created_at": NOW,
            "updated_at": NOW,
        }
        repo.issues[number] = issue
        return issue

    def add_pull(
        self,
        full_name: str,
        number: int,
        head: str,
        base: str,
        title: str = "A change",
        *,
        user: str = "alice",
        association: str = "COLLABORATOR",
        draft: bool = False,
    ) -> dict[str, Any]:
        """A pull request opened by someone (pull requests are issues too)."""
        repo = self.repos[full_name.lower()]
        self.add_issue(full_name, number, title, "", user=user, association=association)
        pull = {"id": next(self._ids), "number": number, "head": head, "base": base, "draft": draft}
        repo.pulls[number] = pull
        return pull

    def add_comment(
        self, full_name: str, number: int, body: str, *, user: str, user_type: str = "User"
    ) -> dict[str, Any]:
        """A comment someone wrote on issue or pull request ``number``."""
        repo = self.repos[full_name.lower()]
        comment = {
            "id": next(self._ids),
            "body": body,
            "user": self._user(user, user_type),
            "author_association": repo.permissions.get(user, "NONE").upper(),
            "created_at": NOW,
            "updated_at": NOW,
            "_repo": repo.full_name.lower(),
            "_issue": number,
        }
        self.comments[comment["id"]] = comment
        repo.issues[number]["comments"] += 1
        return comment

    @staticmethod
    def _association(repo: RepoState, login: str) -> str:
        """What GitHub would put in author_association for ``login`` on ``repo``."""
        if login.lower() == repo.owner.lower():
            return "OWNER"
        return "COLLABORATOR" if login in repo.permissions else "NONE"

    def add_review(
        self,
        full_name: str,
        number: int,
        body: str | None,
        *,
        user: str,
        review_id: int | None = None,
        state: str = "COMMENTED",
    ) -> dict[str, Any]:
        """A submitted review of pull request ``number``."""
        repo = self.repos[full_name.lower()]
        review = {
            "id": review_id or next(self._ids),
            "body": body,
            "state": state,
            "user": self._user(user),
            "author_association": self._association(repo, user),
            "commit_id": repo.branch_sha(repo.pulls[number]["head"]) or "0" * 40,
            "submitted_at": NOW,
            "_pull": number,
        }
        repo.reviews[review["id"]] = review
        return review

    def add_review_comment(
        self,
        full_name: str,
        number: int,
        body: str,
        *,
        user: str,
        path: str,
        line: int | None,
        start_line: int | None = None,
        side: str = "RIGHT",
        diff_hunk: str = "",
        review_id: int | None = None,
        in_reply_to: int | None = None,
        comment_id: int | None = None,
        association: str | None = None,
    ) -> dict[str, Any]:
        """A comment on lines of pull request ``number``'s diff (``line`` None: outdated)."""
        repo = self.repos[full_name.lower()]
        comment = {
            "id": comment_id or next(self._ids),
            "pull_request_review_id": review_id,
            "body": body,
            "path": path,
            "line": line,
            "original_line": line or 1,
            "start_line": start_line,
            "original_start_line": start_line,
            "side": side,
            "start_side": side if start_line else None,
            "diff_hunk": diff_hunk,
            "position": None if line is None else 1,
            "original_position": 1,
            "commit_id": repo.branch_sha(repo.pulls[number]["head"]) or "0" * 40,
            "original_commit_id": "0" * 40,
            "user": self._user(user),
            "author_association": association or self._association(repo, user),
            "created_at": NOW,
            "updated_at": NOW,
            "_repo": repo.full_name.lower(),
            "_pull": number,
        }
        if in_reply_to is not None:
            comment["in_reply_to_id"] = in_reply_to
        self.review_comments[comment["id"]] = comment
        return comment

    def fail(
        self, method: str, path_pattern: str, status: int = 500, message: str = "boom"
    ) -> None:
        """Answer matching requests with an error (until :meth:`clear_failures`)."""
        self.failures.append((method.upper(), re.compile(path_pattern), status, message))

    def clear_failures(self) -> None:
        self.failures.clear()

    # ------------------------------------------------------------------ queries for tests
    def calls(self, method: str | None = None, pattern: str = "") -> list[Recorded]:
        rx = re.compile(pattern)
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper()) and rx.search(r.path)
        ]

    def issue_comments(self, full_name: str, number: int) -> list[dict[str, Any]]:
        key = full_name.lower()
        return [c for c in self.comments.values() if c["_repo"] == key and c["_issue"] == number]

    def pulls(self, full_name: str) -> list[dict[str, Any]]:
        return list(self.repos[full_name.lower()].pulls.values())

    # ------------------------------------------------------------------ rendering
    def _user(self, login: str, user_type: str = "User") -> dict[str, Any]:
        return {
            "login": login,
            "id": abs(hash(login)) % 10**7,
            "type": user_type,
            "url": f"{self.url}/users/{login}",
            "html_url": f"https://github.com/{login}",
            "site_admin": False,
        }

    def _label(self, name: str) -> dict[str, Any]:
        return {"id": abs(hash(name)) % 10**7, "name": name, "color": "ededed", "default": False}

    def _repo_json(self, repo: RepoState) -> dict[str, Any]:
        return {
            "id": abs(hash(repo.full_name)) % 10**8,
            "name": repo.name,
            "full_name": repo.full_name,
            "owner": self._user(repo.owner, "Organization"),
            "private": repo.private,
            "fork": False,
            "default_branch": repo.default_branch,
            "url": f"{self.url}/repos/{repo.full_name}",
            "html_url": f"https://github.com/{repo.full_name}",
            "clone_url": f"https://github.com/{repo.full_name}.git",
            "permissions": {"admin": True, "push": True, "pull": True},
        }

    def _issue_json(self, repo: RepoState, issue: dict[str, Any]) -> dict[str, Any]:
        data = {k: v for k, v in issue.items() if not k.startswith("_")}
        base = f"{self.url}/repos/{repo.full_name}/issues/{issue['number']}"
        data.update(
            url=base,
            comments_url=base + "/comments",
            labels_url=base + "/labels{/name}",
            html_url=f"https://github.com/{repo.full_name}/issues/{issue['number']}",
            repository_url=f"{self.url}/repos/{repo.full_name}",
        )
        if issue["number"] in repo.pulls:
            data["pull_request"] = {
                "url": f"{self.url}/repos/{repo.full_name}/pulls/{issue['number']}"
            }
            data["html_url"] = f"https://github.com/{repo.full_name}/pull/{issue['number']}"
        return data

    def _comment_json(self, comment: dict[str, Any]) -> dict[str, Any]:
        data = {k: v for k, v in comment.items() if not k.startswith("_")}
        repo = self.repos[comment["_repo"]]
        data["url"] = f"{self.url}/repos/{repo.full_name}/issues/comments/{comment['id']}"
        data["issue_url"] = f"{self.url}/repos/{repo.full_name}/issues/{comment['_issue']}"
        data["html_url"] = (
            f"https://github.com/{repo.full_name}/issues/{comment['_issue']}#issuecomment-{comment['id']}"
        )
        return data

    def _review_json(self, repo: RepoState, review: dict[str, Any]) -> dict[str, Any]:
        data = {k: v for k, v in review.items() if not k.startswith("_")}
        n = review["_pull"]
        data["pull_request_url"] = f"{self.url}/repos/{repo.full_name}/pulls/{n}"
        data["html_url"] = (
            f"https://github.com/{repo.full_name}/pull/{n}#pullrequestreview-{review['id']}"
        )
        return data

    def _review_comment_json(self, comment: dict[str, Any]) -> dict[str, Any]:
        data = {k: v for k, v in comment.items() if not k.startswith("_")}
        repo = self.repos[comment["_repo"]]
        n = comment["_pull"]
        data["url"] = f"{self.url}/repos/{repo.full_name}/pulls/comments/{comment['id']}"
        data["pull_request_url"] = f"{self.url}/repos/{repo.full_name}/pulls/{n}"
        data["html_url"] = (
            f"https://github.com/{repo.full_name}/pull/{n}#discussion_r{comment['id']}"
        )
        return data

    def _pull_json(self, repo: RepoState, pull: dict[str, Any]) -> dict[str, Any]:
        issue = repo.issues[pull["number"]]
        n = pull["number"]
        repo_json = self._repo_json(repo)

        def side(ref: str, sha: str | None) -> dict[str, Any]:
            return {
                "label": f"{repo.owner}:{ref}",
                "ref": ref,
                "sha": sha or "0" * 40,
                "repo": repo_json,
                "user": self._user(repo.owner, "Organization"),
            }

        return {
            "id": pull["id"],
            "number": n,
            "state": issue["state"],
            "locked": issue["locked"],
            "title": issue["title"],
            "body": issue["body"],
            "user": issue["user"],
            "draft": pull["draft"],
            "merged": False,
            "mergeable": True,
            "author_association": issue["author_association"],
            "head": side(pull["head"], repo.branch_sha(pull["head"])),
            "base": side(pull["base"], repo.branch_sha(pull["base"])),
            "url": f"{self.url}/repos/{repo.full_name}/pulls/{n}",
            "issue_url": f"{self.url}/repos/{repo.full_name}/issues/{n}",
            "comments_url": f"{self.url}/repos/{repo.full_name}/issues/{n}/comments",
            "html_url": f"https://github.com/{repo.full_name}/pull/{n}",
            "created_at": NOW,
            "updated_at": NOW,
        }

    # ------------------------------------------------------------------ authentication
    def _app_from_jwt(self, authorization: str) -> AppState:
        """The App whose key signed the bearer JWT, checked the way GitHub checks it: RS256
        signature, ``iss`` the App's id, not expired, issued no later than now, at most 10 minutes
        of validity."""
        import jwt

        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or token.count(".") != 2:
            raise ApiError(401, "A JSON web token could not be decoded")
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise ApiError(401, "A JSON web token could not be decoded") from None
        app = self.apps.get(str(claims.get("iss")))
        if app is None:
            raise ApiError(401, "Integration not found")
        try:
            claims = jwt.decode(
                token,
                app.public_key_pem,
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"]},
                leeway=0,
            )
        except jwt.PyJWTError as exc:
            raise ApiError(401, f"'Issued at' claim or signature is invalid: {exc}") from None
        if int(claims["exp"]) - int(claims["iat"]) > 600:
            raise ApiError(401, "'Expiration time' claim ('exp') is too far in the future")
        return app

    def authorize(self, path: str, authorization: str) -> AppState | None:
        """The App for the App-only endpoints (JWT); otherwise check the token when required."""
        if path.startswith("/app/") or re.fullmatch(r"/repos/[^/]+/[^/]+/installation", path):
            return self._app_from_jwt(authorization)
        if self.token is None:
            return None
        given = authorization.split(" ", 1)[-1]
        minted = {t for app in self.apps.values() for t in app.minted}
        if given != self.token and given not in minted:
            raise ApiError(401, "Bad credentials")
        return None

    def _app_route(self, app: AppState, method: str, path: str) -> tuple[int, Any]:
        if m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/installation", path):
            full = f"{unquote(m[1])}/{unquote(m[2])}".lower()
            if method != "GET" or full not in app.repositories or full not in self.repos:
                raise ApiError(404, "Not Found")
            owner = self.repos[full].owner
            return 200, {
                "id": app.installation_id,
                "app_id": int(app.app_id) if app.app_id.isdigit() else 1,
                "app_slug": "gpte-test-app",
                "target_type": "Organization",
                "account": self._user(owner, "Organization"),
                "repository_selection": "selected",
                "access_tokens_url": (
                    f"{self.url}/app/installations/{app.installation_id}/access_tokens"
                ),
                "permissions": {"contents": "write", "issues": "write", "pull_requests": "write"},
                "events": [],
                "created_at": NOW,
                "updated_at": NOW,
            }
        m = re.fullmatch(r"/app/installations/(\d+)/access_tokens", path)
        if m and method == "POST":
            if int(m[1]) != app.installation_id:
                raise ApiError(404, "Not Found")
            token = f"ghs_app{app.installation_id}x{len(app.minted) + 1}x{next(self._ids)}"
            app.minted.append(token)
            return 201, {
                "token": token,
                "expires_at": "2099-01-01T01:00:00Z",
                "permissions": {"contents": "write", "issues": "write", "pull_requests": "write"},
                "repository_selection": "selected",
            }
        raise ApiError(404, "Not Found")

    # ------------------------------------------------------------------ dispatch
    def handle(
        self,
        method: str,
        path: str,
        query: dict[str, list[str]],
        body: Any,
        authorization: str = "",
    ) -> tuple[int, Any]:
        with self._lock:
            for fmethod, rx, status, message in self.failures:
                if fmethod == method and rx.search(path):
                    raise ApiError(status, message)
            app = self.authorize(path, authorization)
            if app is not None:
                return self._app_route(app, method, path)
            if path in ("/user",):
                return 200, self._user("github-actions[bot]", "Bot")
            if path == "/rate_limit":
                core = {"limit": 5000, "remaining": 4999, "reset": 1767225600, "used": 1}
                return 200, {"resources": {"core": core}, "rate": core}
            m = re.fullmatch(r"/repos/([^/]+)/([^/]+)(/.*)?", path)
            if not m:
                raise ApiError(404, "Not Found")
            repo = self.repos.get(f"{unquote(m[1])}/{unquote(m[2])}".lower())
            if repo is None:
                raise ApiError(404, "Not Found")
            return self._repo_route(repo, method, m[3] or "", query, body)

    def _repo_route(
        self, repo: RepoState, method: str, rest: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any]:
        q = {k: v[-1] for k, v in query.items()}
        if rest == "" and method == "GET":
            return 200, self._repo_json(repo)
        if m := re.fullmatch(r"/collaborators/([^/]+)/permission", rest):
            login = unquote(m[1])
            # A user who is not a collaborator can read a public repository, nothing more.
            level = repo.permissions.get(login, "none" if repo.private else "read")
            role = {
                "admin": "admin",
                "maintain": "maintain",
                "write": "write",
                "triage": "triage",
            }.get(level, level)
            legacy = {"maintain": "write", "triage": "read"}.get(level, level)
            return 200, {"permission": legacy, "role_name": role, "user": self._user(login)}
        if m := re.fullmatch(r"/issues/comments/(\d+)", rest):
            comment = self.comments.get(int(m[1]))
            if comment is None or comment["_repo"] != repo.full_name.lower():
                raise ApiError(404, "Not Found")
            if method == "GET":
                return 200, self._comment_json(comment)
            if method == "PATCH":
                comment["body"] = _require(body, "body")
                comment["updated_at"] = NOW
                return 200, self._comment_json(comment)
            if method == "DELETE":
                del self.comments[comment["id"]]
                return 204, None
        if m := re.fullmatch(r"/issues/(\d+)(/.*)?", rest):
            issue = repo.issues.get(int(m[1]))
            if issue is None:
                raise ApiError(404, "Not Found")
            return self._issue_route(repo, issue, method, m[2] or "", body)
        if rest == "/issues" and method == "GET":
            state = q.get("state", "open")
            found = [i for i in repo.issues.values() if state == "all" or i["state"] == state]
            return 200, [
                self._issue_json(repo, i) for i in sorted(found, key=lambda i: -i["number"])
            ]
        if rest == "/pulls":
            if method == "GET":
                return 200, self._list_pulls(repo, q)
            if method == "POST":
                return 201, self._create_pull(repo, body)
        if m := re.fullmatch(r"/pulls/comments/(\d+)", rest):
            found = self.review_comments.get(int(m[1]))
            if found is None or found["_repo"] != repo.full_name.lower():
                raise ApiError(404, "Not Found")
            if method == "GET":
                return 200, self._review_comment_json(found)
            if method == "PATCH":
                found["body"] = _require(body, "body")
                return 200, self._review_comment_json(found)
        if m := re.fullmatch(
            r"/pulls/(\d+)/(reviews|comments)(?:/(\d+))?(/comments|/replies)?", rest
        ):
            if int(m[1]) not in repo.pulls:
                raise ApiError(404, "Not Found")
            return self._review_route(repo, int(m[1]), method, m[2], m[3], m[4], body)
        if m := re.fullmatch(r"/pulls/(\d+)", rest):
            pull = repo.pulls.get(int(m[1]))
            if pull is None:
                raise ApiError(404, "Not Found")
            if method == "GET":
                return 200, self._pull_json(repo, pull)
            if method == "PATCH":
                issue = repo.issues[pull["number"]]
                for key in ("title", "body", "state"):
                    if isinstance(body, dict) and key in body:
                        issue[key] = body[key]
                if isinstance(body, dict) and body.get("base"):
                    pull["base"] = body["base"]
                return 200, self._pull_json(repo, pull)
        raise ApiError(404, "Not Found")

    def _review_route(
        self,
        repo: RepoState,
        number: int,
        method: str,
        kind: str,
        item: str | None,
        sub: str | None,
        body: Any,
    ) -> tuple[int, Any]:
        key = repo.full_name.lower()
        on_pull = [
            c
            for c in sorted(self.review_comments.values(), key=lambda c: c["id"])
            if c["_repo"] == key and c["_pull"] == number
        ]
        if kind == "reviews" and item is not None and method == "GET":
            review = repo.reviews.get(int(item))
            if review is None or review["_pull"] != number:
                raise ApiError(404, "Not Found")
            if sub == "/comments":
                mine = [c for c in on_pull if c["pull_request_review_id"] == review["id"]]
                return 200, [self._review_comment_json(c) for c in mine]
            if sub is None:
                return 200, self._review_json(repo, review)
        if kind == "comments" and item is None and sub is None and method == "GET":
            return 200, [self._review_comment_json(c) for c in on_pull]
        if kind == "comments" and item is not None and sub == "/replies" and method == "POST":
            target = self.review_comments.get(int(item))
            if target is None or target["_repo"] != key or target["_pull"] != number:
                raise ApiError(404, "Not Found")
            if target.get("in_reply_to_id"):
                raise ApiError(
                    422, "Validation Failed", [{"message": "replies to replies are not supported"}]
                )
            reply = self.add_review_comment(
                repo.full_name,
                number,
                _require(body, "body"),
                user="github-actions[bot]",
                path=target["path"],
                line=target["line"],
                start_line=target["start_line"],
                side=target["side"],
                diff_hunk=target["diff_hunk"],
                in_reply_to=target["id"],
                association="NONE",
            )
            reply["user"] = self._user("github-actions[bot]", "Bot")
            review = self.add_review(repo.full_name, number, "", user="github-actions[bot]")
            reply["pull_request_review_id"] = review["id"]
            return 201, self._review_comment_json(reply)
        raise ApiError(404, "Not Found")

    def _issue_route(
        self, repo: RepoState, issue: dict[str, Any], method: str, rest: str, body: Any
    ) -> tuple[int, Any]:
        number = issue["number"]
        if rest == "":
            if method == "GET":
                return 200, self._issue_json(repo, issue)
            if method == "PATCH":
                for key in ("title", "body", "state"):
                    if isinstance(body, dict) and key in body:
                        issue[key] = body[key]
                if isinstance(body, dict) and "labels" in body:
                    issue["labels"] = [self._label(str(n)) for n in body["labels"]]
                return 200, self._issue_json(repo, issue)
        if rest == "/comments":
            if method == "GET":
                found = [self._comment_json(c) for c in self.issue_comments(repo.full_name, number)]
                return 200, found
            if method == "POST":
                if issue["locked"]:
                    raise ApiError(403, "Unable to create comment because issue is locked.")
                comment = {
                    "id": next(self._ids),
                    "body": _require(body, "body"),
                    "user": self._user("github-actions[bot]", "Bot"),
                    "author_association": "NONE",
                    "created_at": NOW,
                    "updated_at": NOW,
                    "_repo": repo.full_name.lower(),
                    "_issue": number,
                }
                self.comments[comment["id"]] = comment
                issue["comments"] += 1
                return 201, self._comment_json(comment)
        if rest == "/labels":
            if method == "GET":
                return 200, issue["labels"]
            if method in ("POST", "PUT"):
                names = body.get("labels", []) if isinstance(body, dict) else body
                if method == "PUT":
                    issue["labels"] = []
                have = {lab["name"] for lab in issue["labels"]}
                issue["labels"] += [self._label(str(n)) for n in names if str(n) not in have]
                return 200, issue["labels"]
        if (m := re.fullmatch(r"/labels/([^/]+)", rest)) and method == "DELETE":
            name = unquote(m[1])
            before = len(issue["labels"])
            issue["labels"] = [lab for lab in issue["labels"] if lab["name"] != name]
            if len(issue["labels"]) == before:
                raise ApiError(404, "Label does not exist")
            return 200, issue["labels"]
        raise ApiError(404, "Not Found")

    def _list_pulls(self, repo: RepoState, q: dict[str, str]) -> list[dict[str, Any]]:
        state = q.get("state", "open")
        out = []
        for pull in sorted(repo.pulls.values(), key=lambda p: -p["number"]):
            issue = repo.issues[pull["number"]]
            if state != "all" and issue["state"] != state:
                continue
            if "head" in q:
                owner, _, ref = q["head"].partition(":")
                if owner.lower() != repo.owner.lower() or ref != pull["head"]:
                    continue
            if "base" in q and q["base"] != pull["base"]:
                continue
            out.append(self._pull_json(repo, pull))
        return out

    def _create_pull(self, repo: RepoState, body: Any) -> dict[str, Any]:
        title, head, base = _require(body, "title"), _require(body, "head"), _require(body, "base")
        head_ref = head.split(":", 1)[1] if ":" in head else head
        errors = []
        if repo.branch_sha(head_ref) is None:
            errors.append({"resource": "PullRequest", "field": "head", "code": "invalid"})
        if repo.branch_sha(base) is None:
            errors.append({"resource": "PullRequest", "field": "base", "code": "invalid"})
        if errors:
            raise ApiError(422, "Validation Failed", errors)
        for pull in repo.pulls.values():
            if (
                pull["head"] == head_ref
                and pull["base"] == base
                and repo.issues[pull["number"]]["state"] == "open"
            ):
                raise ApiError(
                    422,
                    "Validation Failed",
                    [
                        {
                            "resource": "PullRequest",
                            "code": "custom",
                            "message": (
                                f"A pull request already exists for {repo.owner}:{head_ref}."
                            ),
                        }
                    ],
                )
        number = max([0, *repo.issues]) + 1
        self.add_issue(
            repo.full_name,
            number,
            title,
            body.get("body"),
            user="github-actions[bot]",
            user_type="Bot",
            association="NONE",
        )
        repo.pulls[number] = {
            "id": next(self._ids),
            "number": number,
            "head": head_ref,
            "base": base,
            "draft": bool(body.get("draft", False)),
        }
        return self._pull_json(repo, repo.pulls[number])


def _require(body: Any, key: str) -> str:
    if not isinstance(body, dict) or not isinstance(body.get(key), str):
        raise ApiError(422, "Validation Failed", [{"field": key, "code": "missing_field"}])
    value: str = body[key]
    return value


class _Handler(BaseHTTPRequestHandler):
    api: GitHubServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _serve(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/") or "/"
        if path.startswith("/api/v3"):  # GitHub Enterprise style prefix
            path = path[len("/api/v3") :] or "/"
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        query = parse_qs(parts.query)
        self.api.requests.append(
            Recorded(self.command, path, query, body, dict(self.headers.items()))
        )
        if self.api.record:
            line = {"method": self.command, "path": path, "query": query, "body": body}
            with self.api._lock, open(self.api.record, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")
        try:
            status, payload = self.api.handle(
                self.command, path, query, body, self.headers.get("Authorization", "")
            )
        except ApiError as err:
            status = err.status
            payload = {"message": err.message, "documentation_url": "https://docs.github.com/rest"}
            if err.errors:
                payload["errors"] = err.errors
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-RateLimit-Limit", "5000")
        self.send_header("X-RateLimit-Remaining", "4999")
        self.send_header("X-RateLimit-Reset", "1767225600")
        self.send_header("X-GitHub-Media-Type", "github.v3; format=json")
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--repo", default="octo/demo", help="owner/name to serve")
    parser.add_argument("--default-branch", default="main")
    parser.add_argument("--git-dir", help="bare repository standing in for the remote")
    parser.add_argument("--token", help="require this token")
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="append each request (method, path, query, body; never the token) as a JSON line",
    )
    args = parser.parse_args()
    server = GitHubServer(token=args.token, port=args.port, record=args.record)
    server.add_repo(args.repo, default_branch=args.default_branch, git_dir=args.git_dir)
    server.add_issue(args.repo, 1, "Example issue", "Please fix the typo.", labels=("gpte",))
    print(f"GitHub API for {args.repo} at {server.url} (Ctrl-C to stop)", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


if __name__ == "__main__":
    main()
