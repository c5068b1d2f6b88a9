"""In CI with every host installed, a skipped test fails unless tests/conftest.py's CI_MAY_SKIP
names it: a real pytest, in a process of its own, with that conftest as its plugin."""

from __future__ import annotations

import pytest

from conftest import CI_MAY_SKIP, ROOT

pytest_plugins = ["pytester"]

IPV6 = "tests/faults/test_faults_proxy.py::test_loopback_listen_addresses_are_taken[[::1]:0]"


@pytest.fixture
def suite(pytester, monkeypatch):
    """A skipping test, an expected failure and a passing test, a module that skips whole, and a
    test whose node id is on the list; tests/conftest.py loaded as a plugin."""
    pytester.makepyfile(test_skips="""
        import pytest

        def test_skipped():
            pytest.skip("not here")

        @pytest.mark.skipif(True, reason="marked")
        def test_marked():
            pass

        @pytest.mark.xfail(reason="known", strict=True)
        def test_expected_failure():
            assert False

        def test_passes():
            pass
    """)
    pytester.makepyfile(test_module="""
        import pytest

        pytest.importorskip("no_module_of_this_name")

        def test_never_collected():
            pass
    """)
    listed = pytester.mkdir("tests").joinpath("faults")
    listed.mkdir()
    listed.joinpath("test_faults_proxy.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('listen', ['[::1]:0'])\n"
        "def test_loopback_listen_addresses_are_taken(listen):\n    pytest.skip('no ::1')\n")
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests"))
    for name in ("CI", "MCP_ACCEPT_ALL_HOSTS"):
        monkeypatch.delenv(name, raising=False)

    def outcome(**env):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        # a module that fails its collection ends the session before any test; here the tests
        # run on, so that every kind of skip is seen in one session
        return pytester.runpytest_subprocess("-p", "conftest", "-p", "no:cacheprovider", "-rA",
                                             "--continue-on-collection-errors")

    return outcome


def test_the_listed_test_is_one_of_the_suite():
    assert IPV6 in CI_MAY_SKIP and all(reason for reason in CI_MAY_SKIP.values())


def test_in_ci_a_skip_off_the_list_fails(suite):
    done = suite(CI="true", MCP_ACCEPT_ALL_HOSTS="1")
    # a skip in the test's call fails it; a skip at its setup (a marker, a fixture) or of a
    # whole module at its collection is an error
    done.assert_outcomes(passed=1, skipped=1, xfailed=1, errors=2, failed=1)
    text = done.stdout.str()
    assert "FAILED test_skips.py::test_skipped" in text and "ERROR test_skips.py::test_marked" in text
    assert "ERROR test_module.py" in text and "no_module_of_this_name" in text
    assert "not in CI_MAY_SKIP" in text and "not here" in text
    assert f"SKIPPED [1] {IPV6.split('::')[0]}" in text  # the listed one still skips
    assert done.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("env", [{}, {"CI": "true"}])  # CI, but not every host installed
def test_outside_ci_with_every_host_a_skip_is_a_skip(suite, env):
    done = suite(**env)
    done.assert_outcomes(passed=1, skipped=4, xfailed=1)
    assert done.ret == pytest.ExitCode.OK
