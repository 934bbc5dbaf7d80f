"""Image inputs (``--image PATH``): checked, typed by their bytes, and encoded per provider.

The run log and the cache see an image as its path, type, size and SHA-256, never its bytes.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

MAX_IMAGE_BYTES = 20 * 1024 * 1024

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


@dataclass(frozen=True)
class Image:
    path: str
    media_type: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64}"

    def reference(self) -> dict[str, object]:
        """What the log and the cache key record instead of the bytes."""
        return {
            "path": self.path,
            "media_type": self.media_type,
            "bytes": len(self.data),
            "sha256": self.sha256,
        }


def media_type(data: bytes) -> str | None:
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def load_image(path: str | os.PathLike[str]) -> Image:
    """Read and check one image; a clear :class:`UsageError` for anything unusable."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise UsageError(
                f"image {str(path)!r} is {size / 1e6:.1f} MB; the limit is "
                f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB"
            )
        data = file.read_bytes()
    except IsADirectoryError:
        raise UsageError(f"image {str(path)!r} is a directory") from None
    except FileNotFoundError:
        raise UsageError(f"image {str(path)!r} does not exist") from None
    except OSError as exc:
        raise UsageError(f"cannot read image {str(path)!r}: {exc.strerror or exc}") from None
    kind = media_type(data)
    if kind is None:
        raise UsageError(f"{str(path)!r} is not a PNG, JPEG, GIF or WebP image")
    return Image(path=str(path), media_type=kind, data=data)
