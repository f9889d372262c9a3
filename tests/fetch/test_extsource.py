import pytest

from exobrain.fetch.remote import SourceRefused, check_path, check_ref, check_repo, check_source

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    "repo",
    [
        "https://github.com/anthropics/skills",
        "ssh://git@example.com:2222/team/skills.git",
        "git@github.com:anthropics/skills.git",
    ],
)
def test_accepted_remotes(repo, tmp_path):
    assert check_repo(repo, allow_local=False, root=tmp_path) == (repo, False)


@pytest.mark.parametrize(
    "repo, message",
    [
        ("-uhttps://x", "starts with '-'"),
        ("--upload-pack=touch /tmp/x", "starts with '-'"),
        ("ext::sh -c id", "spaces or control characters"),
        ("ext::sh%S-c%Sid", "<transport>::<address>"),
        ("fd::3", "<transport>::<address>"),
        ("http://example.com/x.git", "not an accepted URL"),
        ("git://example.com/x.git", "not an accepted URL"),
        ("https:///nohost", "has no host name"),
        ("skills-repo", "not an accepted URL"),
        ("file:///srv/x.git", "local sources are off by default"),
        ("/srv/x.git", "local sources are off by default"),
    ],
)
def test_refused_remotes(repo, message, tmp_path):
    with pytest.raises(SourceRefused) as info:
        check_repo(repo, allow_local=False, root=tmp_path)
    assert message in str(info.value)


def test_local_paths_become_file_urls_when_allowed(tmp_path):
    url, local = check_repo("../upstream.git", allow_local=True, root=tmp_path / "brain")
    assert local and url == (tmp_path / "upstream.git").as_uri()
    assert check_repo("file:///srv/x.git", allow_local=True, root=tmp_path) == (
        "file:///srv/x.git",
        True,
    )


@pytest.mark.parametrize("ref", ["main", "v1.2.0", "release/2026", "refs/heads/main", "HEAD"])
def test_accepted_refs(ref):
    assert check_ref(ref) == ref


def test_full_sha_is_normalised():
    assert check_ref(SHA.upper()) == SHA


@pytest.mark.parametrize(
    "ref",
    [
        "-main",
        "--upload-pack=x",
        "a..b",
        "a b",
        "a~1",
        "a^",
        "x:y",
        "a@{1}",
        "@",
        "a/",
        "/a",
        "a//b",
        ".hidden",
        "x.lock",
        "a.",
    ],
)
def test_refused_refs(ref):
    with pytest.raises(SourceRefused):
        check_ref(ref)


@pytest.mark.parametrize(
    "path, expected", [("skills/pdf", "skills/pdf"), ("skills/pdf/", "skills/pdf"), (".", ".")]
)
def test_accepted_paths(path, expected):
    assert check_path(path) == expected


@pytest.mark.parametrize(
    "path", ["../x", "skills/../../etc", "/etc", "a//b", "./a", "a/.git", ".git", "a\x01b"]
)
def test_refused_paths(path):
    with pytest.raises(SourceRefused):
        check_path(path)


def test_check_source_pins_only_full_commit_ids(tmp_path):
    raw = {"repo": "https://example.com/s.git", "path": "skills/a", "ref": SHA}
    assert check_source(raw, allow_local=False, root=tmp_path).pinned
    raw["ref"] = "v1"
    assert not check_source(raw, allow_local=False, root=tmp_path).pinned
