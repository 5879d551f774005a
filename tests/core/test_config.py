import pytest

import wsarray as wnp

MB, MiB = 10**6, 2**20


@pytest.mark.parametrize(
    "text, expected",
    [("0", 0), ("4096", 4096), ("64MB", 64 * MB), ("64 mb", 64 * MB), ("1.5GiB", int(1.5 * 2**30)),
     ("512KiB", 512 * 1024), ("2KB", 2000), ("3 B", 3), ("  7MiB ", 7 * MiB), ("1TB", 10**12)],
)
def test_parse_size(text, expected):
    assert wnp.parse_size(text) == expected


@pytest.mark.parametrize("bad", ["12 parsecs", "", "MB", "1.2.3MB", "-5", "ten", "5 XB", "1e3"])
def test_parse_size_rejects_junk(bad):
    with pytest.raises(ValueError, match="wsarray.WorkspaceConfig"):
        wnp.parse_size(bad)


def test_config_defaults_and_repr():
    c = wnp.WorkspaceConfig()
    assert (c.initial_size, c.max_size, c.learning, c.spill, c.reset, c.location) == (
        0, 0, "first_loop", "external", "block_left", "ram")
    assert "learning='first_loop'" in repr(c)
    assert wnp.WorkspaceConfig(initial_size="1MB") == wnp.WorkspaceConfig(initial_size=MB)
    assert not (wnp.WorkspaceConfig(initial_size="1MB") == wnp.WorkspaceConfig())
    # Anything else compares unequal rather than raising (the stub types __eq__ as taking any object).
    assert c != "WSA_DEFAULT" and not (c == 0) and c != None  # noqa: E711


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(initial_size=-5), ValueError, "initial_size must be >= 0"),
        (dict(initial_size="12 parsecs"), ValueError, "unknown unit"),
        (dict(initial_size=1.5), TypeError, "initial_size must be an int"),
        (dict(initial_size=True), TypeError, "not a bool"),
        (dict(max_size=2**70), ValueError, "too large"),
        (dict(learning="sometimes"), ValueError, "'first_loop', 'over_time', 'none'"),
        (dict(spill="explode"), ValueError, "spill"),
        (dict(reset="never"), ValueError, "reset"),
        (dict(allocation=3), TypeError, "allocation must be a string"),
        (dict(location="disk"), ValueError, "location"),
        (dict(overallocation_limit=-1.0), ValueError, "overallocation_limit"),
        (dict(overallocation_limit=float("nan")), ValueError, "overallocation_limit"),
        (dict(cycles_before_initialization=-2), ValueError, "cycles_before_initialization"),
        (dict(initial_size="2MB", max_size="1MB"), ValueError, "exceeds max_size"),
        (dict(temp_file_path="/tmp"), ValueError, "location='mmap'"),
    ],
)
def test_config_rejects_bad_values(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        wnp.WorkspaceConfig(**kwargs)


def test_config_is_keyword_only():
    with pytest.raises(TypeError):
        wnp.WorkspaceConfig("64MB")


def test_workspace_name_and_config_types():
    with pytest.raises(TypeError, match="wsarray.workspace\\(\\): name must be a str"):
        wnp.workspace(42)
    with pytest.raises(TypeError, match="config must be a wsarray.WorkspaceConfig"):
        wnp.workspace("W", {"initial_size": 5})
    with pytest.raises(wnp.WorkspaceError, match="non-empty name"):
        wnp.workspace("")


def test_same_name_same_workspace_and_conflicting_config():
    cfg = wnp.WorkspaceConfig(initial_size="1MB")
    a = wnp.workspace("CFG", cfg)
    b = wnp.workspace("CFG")
    c = wnp.workspace("CFG", wnp.WorkspaceConfig(initial_size="1MB"))
    with a:
        assert b.is_open and c.is_open
    with pytest.raises(wnp.WorkspaceError, match="different configuration"):
        wnp.workspace("CFG", wnp.WorkspaceConfig(initial_size="2MB"))
