"""Image files are checked before they are decoded (issue 28, defect 4), and a
bad frame in a folder is skipped, not fatal (defect 2).

The bomb is a real PNG: a few hundred kilobytes that declare 30000 x 30000
pixels (2.7 GB once decoded).
"""

from __future__ import annotations

import resource
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imagefile import MAX_PIXELS, ImageFileError, image_size, load_image
from vision.sources import ImageFolderSource


def _png(width: int, height: int) -> bytes:
    """A valid greyscale PNG of ``width`` x ``height`` black pixels, compressed."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    raw = zlib.compressobj(9)
    row = b"\0" * (width + 1)
    data = b"".join(raw.compress(row) for _ in range(height)) + raw.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bomb") / "table.png"
    path.write_bytes(_png(30000, 30000))
    return path


def test_a_decompression_bomb_is_refused_before_decoding(bomb: Path) -> None:
    assert bomb.stat().st_size < 2_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ImageFileError, match="30000 x 30000 pixels is too large"):
        load_image(bomb)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 50


def test_vision_read_refuses_the_bomb_with_exit_2(bomb: Path, capsys: pytest.CaptureFixture[str]
                                                  ) -> None:
    from cli.cmd_vision import main

    assert main(["read", str(bomb)]) == 2
    assert "trop grand pour être lu" in capsys.readouterr().err


def test_the_header_gives_the_size_of_each_format(tmp_path: Path) -> None:
    frame = np.full((37, 53, 3), 90, np.uint8)
    for ext in (".png", ".jpg", ".bmp", ".webp"):
        ok, data = cv2.imencode(ext, frame)
        assert ok
        assert image_size(data.tobytes()) == (53, 37), ext
        (tmp_path / f"f{ext}").write_bytes(data.tobytes())
        assert load_image(tmp_path / f"f{ext}").shape == (37, 53, 3)
    assert image_size(b"GIF89a....") is None
    assert MAX_PIXELS > 4608 * 2592  # a Pi camera 3's full frame still reads


def test_a_bad_frame_in_a_folder_is_skipped(tmp_path: Path, bomb: Path) -> None:
    frame = np.full((40, 60, 3), 120, np.uint8)
    cv2.imwrite(str(tmp_path / "001.png"), frame)
    (tmp_path / "002.jpg").write_bytes(b"\xff\xd8 truncated")
    (tmp_path / "003.png").write_bytes(bomb.read_bytes())
    cv2.imwrite(str(tmp_path / "004.png"), frame)
    source = ImageFolderSource(tmp_path, interval=0.5)
    got = list(source)
    assert [t for t, _ in got] == [0.0, 1.5]
    assert len(source.skipped) == 2 and "too large" in source.skipped[1]
