"""Archive extraction: names checked before anything is written, links resolved last."""

import stat
import zipfile

import pytest

from exobrain.errors import InputFileError
from exobrain.util.archive import extract


def make_zip(path, entries):
    with zipfile.ZipFile(path, "w") as handle:
        for name, text, mode in entries:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = mode << 16
            handle.writestr(info, text)
    return path


FILE, LINK, DIR = stat.S_IFREG | 0o644, stat.S_IFLNK | 0o777, stat.S_IFDIR | 0o755


def test_a_good_archive_with_folders_and_inside_links(tmp_path):
    archive = make_zip(
        tmp_path / "ok.zip",
        [("s/", "", DIR), ("s/a/b.txt", "b", FILE), ("s/link", "a/b.txt", LINK)],
    )
    (tmp_path / "out").mkdir()
    extract(archive, tmp_path / "out")
    assert (tmp_path / "out/s/link").read_text() == "b"


@pytest.mark.parametrize(
    "entries, why",
    [
        ([("s/f", "x", FILE), ("s/f/x", "y", FILE)], "entry 's/f/x' passes through 's/f', a file"),
        ([("s/d/", "", DIR), ("s/d", "x", FILE)], "entry 's/d' appears twice"),
        ([("s/l", "../..", LINK)], "s/l is a link to '../..', which leads outside it"),
        ([("/abs", "x", FILE)], "entry '/abs' would land outside the extraction folder"),
    ],
)
def test_refusals_name_the_entry_and_keep_nothing_outside(tmp_path, entries, why):
    archive = make_zip(tmp_path / "bad.zip", entries)
    (tmp_path / "out").mkdir()
    with pytest.raises(InputFileError, match="refusing the archive") as caught:
        extract(archive, tmp_path / "out")
    assert why in caught.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.zip", "out"]
