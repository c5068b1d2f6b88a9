"""Secrets: header values (given as they are or as env:VAR), a URL's password, and
condition values that look like credentials never reach a file or the console. Each
test searches the whole run folder and the captured output for the secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import refused_port, run_cli
from faultkit import assert_complete, assert_one_line_error, server, tree_text

HTTP = "Streamable HTTP"
# Made-up values shaped like real credentials (each is caught by looks_like_credential).
BEARER = "mcpa7Q2xL9vR4tK8wZ1nB6yH3jF5dS0gP"
ENV_KEY = "sk-mcpaTEST9f8e7d6c5b4a3210zyxw"
PLAIN = "tenant-only-4f1d2c3b"  # not credential-shaped: a header value is secret all the same
URL_PASSWORD = "pw-mcpa-55ac10de"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtY3BhLXRlc3QifQ.c2lnbmF0dXJlLW1jcGEtdGVzdA"


def assert_absent(secrets, folder: Path | None, *texts: str) -> None:
    haystack = "\n".join(texts) + ("\n" + tree_text(folder) if folder and folder.exists() else "")
    for secret in secrets:
        assert secret not in haystack, f"the secret {secret[:6]}... was written or printed"


def test_header_secrets_never_reach_the_evidence(tmp_path: Path, held_port) -> None:
    """The server echoes every request header in its answers, on its stdout and on its
    stderr; the run folder and the console show none of the values."""
    folder, port = tmp_path / "run", held_port()
    proc = run_cli("run", "--url", f"http://mcpa:{URL_PASSWORD}@127.0.0.1:{port}/mcp",
                   "--server", server("--http", port, "--mode", "echo-headers"),
                   "--header", f"Authorization: Bearer {BEARER}",
                   "--header", "X-Api-Key: env:MCPA_FAULT_KEY",
                   "--header", f"X-Tenant: {PLAIN}",
                   "--out", str(folder), "--timeout", "5",
                   env={"MCPA_FAULT_KEY": ENV_KEY})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert_complete(folder, proc, transport=HTTP)
    assert_absent([BEARER, ENV_KEY, PLAIN, URL_PASSWORD], folder, proc.stdout, proc.stderr)
    # The echo did happen, masked: otherwise this test would prove nothing.
    evidence = tree_text(folder)
    assert "[REDACTED]" in (folder / "stderr.log").read_text()
    assert "request headers:" in (folder / "stderr.log").read_text()
    assert "[REDACTED]" in (folder / "wire.jsonl").read_text()
    assert "X-Tenant" in evidence and "X-Api-Key" in evidence


@pytest.mark.parametrize("options, needles", [
    (["--set", f"auth_context=Bearer {BEARER}"], ["--set", "auth_context", "bearer token"]),
    (["--set", f"S02.mode={JWT}"], ["--set", "S02.mode", "JWT"]),
    (["--set", f"model_and_settings=api_key={ENV_KEY}"], ["--set", "model_and_settings"]),
    (["--conditions", "{d}/conditions.yaml"], ["conditions.yaml:3", "auth_context", "credentials are never recorded"]),
])
def test_credential_conditions_are_refused_unprinted(options, needles, tmp_path: Path) -> None:
    (tmp_path / "conditions.yaml").write_text(
        "server_name: demo\nhost_product: Claude Code\n"
        f"auth_context: \"tenant=acme role=reader token={BEARER}\"\n", encoding="utf-8")
    options = [o.format(d=tmp_path) for o in options]
    folder = tmp_path / "run"
    proc = run_cli("run", *options, "--out", str(folder))
    assert_one_line_error(proc, *[n.format(d=tmp_path) for n in needles])
    assert not folder.exists()
    assert_absent([BEARER, JWT, ENV_KEY], folder, proc.stdout, proc.stderr)


def test_tenant_and_role_are_kept(tmp_path: Path) -> None:
    """The control: an auth context without a credential is recorded as given."""
    folder = tmp_path / "run"
    proc = run_cli("run", "--set", "auth_context=tenant=acme role=reader", "--out", str(folder), "--timeout", "5")
    assert proc.returncode == 0
    results = assert_complete(folder, proc)
    assert results["conditions"]["auth_context"] == "tenant=acme role=reader"


def test_secret_in_a_failing_header_is_not_echoed(tmp_path: Path) -> None:
    """An error about a header names the header, never its value."""
    with refused_port() as port:  # refused before any connection
        proc = run_cli("run", "--url", f"http://127.0.0.1:{port}/mcp",
                       "--header", f"Authorization: Bearer {BEARER}\u00e9", "--out", str(tmp_path / "run"))
    assert_one_line_error(proc, "--header Authorization")
    assert_absent([BEARER], tmp_path / "run", proc.stdout, proc.stderr)
