"""JSON-lines server in front of the Hermes 0.19.0 skills guard, cron scanners and skills index.

Run ONLY by the oracle venv's interpreter (``.oracle/bin/python -I skills_cron_oracle.py``):
it imports the runtime's ``tools``/``agent``/``cron`` packages, never soulscan. One JSON
request per line on stdin (``{"op": ..., ...}`` or ``{"batch": [...]}``), one response per
line on stdout (``{"ok": true, "value": ...}`` / ``{"ok": false, "error": {...}}``).

Values are the runtime's, with one normalisation: where the runtime names *one* of several
invisible characters, its choice follows ``set`` iteration (hash-seed dependent), so the
server checks the runtime's choice is one of the candidates, names the lowest code point
instead and lists every candidate.

``write_tree`` (stdlib only) is also imported by the tests to lay out the same trees.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

INVISIBLE_PREFIX = "Blocked: prompt contains invisible unicode "


def write_tree(base: Path, tree: dict[str, Any]) -> None:
    """Lay out ``{relpath: value}``: text (UTF-8, no newline translation), ``$bytes_b64``,
    ``$symlink`` (link target, verbatim), ``$dir``, ``$exec`` (text, mode 0755) or
    ``$size`` (that many ``a`` bytes)."""
    base.mkdir(parents=True, exist_ok=True)
    for rel, value in tree.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, str):
            path.write_bytes(value.encode("utf-8", "surrogatepass"))
        elif "$bytes_b64" in value:
            path.write_bytes(base64.b64decode(value["$bytes_b64"]))
        elif "$symlink" in value:
            os.symlink(value["$symlink"], path)
        elif "$dir" in value:
            path.mkdir(exist_ok=True)
        elif "$exec" in value:
            path.write_bytes(value["$exec"].encode("utf-8"))
            path.chmod(0o755)
        elif "$size" in value:
            path.write_bytes(b"a" * value["$size"])
        else:
            raise ValueError(f"unknown tree value for {rel!r}")


class OracleClient:
    """The caller's side: start the server under the oracle python, send batches."""

    def __init__(self, oracle_python: Path) -> None:
        import subprocess

        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONIOENCODING": "utf-8",
               "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/root")}
        self._proc = subprocess.Popen(
            [str(Path(oracle_python).absolute()), "-I", str(Path(__file__).resolve())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, encoding="utf-8", env=env, cwd=str(Path(oracle_python).parents[1]))

    def batch(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps({"batch": requests}, ensure_ascii=True) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"oracle server exited (code {self._proc.poll()})")
        return list(json.loads(line)["batch"])

    def values(self, requests: list[dict[str, Any]]) -> list[Any]:
        out = []
        for request, response in zip(requests, self.batch(requests)):
            if not response["ok"]:
                raise RuntimeError(f"oracle {request['op']}: {response['error']}")
            out.append(response["value"])
        return out

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=30)


def _label(char: str) -> str:
    return f"U+{ord(char):04X}"


class Runtime:
    def __init__(self) -> None:
        from agent import prompt_builder, skill_utils
        from cron import scheduler
        from tools import cronjob_tools, skills_guard

        self.guard = skills_guard
        self.cron = cronjob_tools
        self.scheduler = scheduler
        self.skill_utils = skill_utils
        self.prompt_builder = prompt_builder

    # ------------------------------------------------------------- skills guard

    def _finding(self, finding: Any, lines: list[str] | None, base: str | None) -> dict[str, Any]:
        out = {k: getattr(finding, k) for k in ("pattern_id", "severity", "category", "file",
                                                  "line", "match")}
        if finding.pattern_id == "invisible_unicode" and lines is not None:
            present = sorted(self.guard.INVISIBLE_CHARS.intersection(lines[finding.line - 1]))
            chosen = finding.match.split(" ", 1)[0]
            assert chosen in [_label(c) for c in present], (chosen, present)
            out["match"] = f"{_label(present[0])} ({self.guard._unicode_char_name(present[0])})"
            out["candidates"] = [_label(c) for c in present]
        if base is not None:
            out["match"] = out["match"].replace(base, "{BASE}")
        return out

    def op_guard_text(self, r: dict[str, Any]) -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / r["filename"]
            write_tree(Path(tmp), {r["filename"]: r["content"]})
            try:
                lines = path.read_text(encoding="utf-8").split("\n")
            except (UnicodeDecodeError, OSError):
                lines = None
            return [self._finding(f, lines, None) for f in self.guard.scan_file(path, r["filename"])]

    def op_guard_tree(self, r: dict[str, Any]) -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp).resolve()
            write_tree(base, r["tree"])
            target = base / r["skill"]
            try:
                result = self.guard.scan_skill(target, source=r["source"])
            except RuntimeError as exc:
                return {"aborted": type(exc).__name__}
            findings = []
            for f in result.findings:
                lines = None
                if f.pattern_id == "invisible_unicode":
                    where = target / f.file if target.is_dir() else target
                    lines = where.read_text(encoding="utf-8").split("\n")
                findings.append(self._finding(f, lines, str(base)))
            decisions = {}
            for level in ("builtin", "trusted", "community", "agent-created"):
                result.trust_level = level
                decisions[level] = list(self.guard.should_allow_install(result))
            findings.sort(key=lambda d: (d["file"], d["line"], d["pattern_id"], d["match"]))
            return {"skill_name": result.skill_name, "verdict": result.verdict,
                    "findings": findings, "decisions": decisions}

    def op_trust_level(self, r: dict[str, Any]) -> Any:
        return self.guard._resolve_trust_level(r["source"])

    def op_install(self, r: dict[str, Any]) -> Any:
        finding = self.guard.Finding("x", "low", "x", "x", 0, "x", "x")
        result = self.guard.ScanResult("s", "src", r["trust_level"], r["verdict"],
                                       findings=[finding] * r["count"])
        return list(self.guard.should_allow_install(result, force=r["force"]))

    # ------------------------------------------------------------- cron

    def _normalise_cron(self, message: str, scanned: str) -> Any:
        if not message.startswith(INVISIBLE_PREFIX):
            return {"message": message}
        text = self.cron._strip_legitimate_emoji_zwj(self.cron._strip_cron_safe_constructs(scanned))
        present = sorted(self.cron._CRON_INVISIBLE_CHARS.intersection(text))
        chosen = message[len(INVISIBLE_PREFIX):].split(" ", 1)[0]
        assert chosen in [_label(c) for c in present], (chosen, present)
        return {"message": message.replace(chosen, _label(present[0]), 1),
                "candidates": [_label(c) for c in present]}

    def op_cron_strict(self, r: dict[str, Any]) -> Any:
        return self._normalise_cron(self.cron._scan_cron_prompt(r["text"]), r["text"])

    def op_cron_loose(self, r: dict[str, Any]) -> Any:
        cleaned, error = self.cron._scan_cron_skill_assembled(r["text"])
        _, removed = self.cron._strip_invisible_unicode(r["text"])
        return {"prompt": cleaned, "message": error, "stripped": removed}

    def op_cron_run(self, r: dict[str, Any]) -> Any:
        loose = r["has_skills"] or r["has_injected_data"]
        try:
            prompt = self.scheduler._scan_assembled_cron_prompt(
                r["assembled"], {"id": "job"}, has_skills=r["has_skills"],
                has_injected_data=r["has_injected_data"], user_prompt=r["user_prompt"])
        except self.scheduler.CronPromptInjectionBlocked as exc:
            scanned = (r["user_prompt"] or "") if loose else r["assembled"]
            return {"blocked": True, **self._normalise_cron(str(exc), scanned)}
        return {"blocked": False, "prompt": prompt}

    # ------------------------------------------------------------- skills index

    def op_index_entry(self, r: dict[str, Any]) -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            skills_dir = Path(tmp).resolve() / "skills"
            write_tree(skills_dir, r["tree"])
            skill_file = skills_dir / r["skill_file"]
            ok, frontmatter, desc = self.prompt_builder._parse_skill_file(skill_file)
            try:
                entry = self.prompt_builder._build_snapshot_entry(
                    skill_file, skills_dir, frontmatter, desc)
            except TypeError:  # uncaught by build_skills_system_prompt: the prompt build fails
                return {"crash": "TypeError"}
            return {"compatible": ok, "skill_name": entry["skill_name"],
                    "category": entry["category"], "frontmatter_name": entry["frontmatter_name"],
                    "description": entry["description"]}

    def op_category_description(self, r: dict[str, Any]) -> Any:
        fm, _ = self.skill_utils.parse_frontmatter(r["content"])
        desc = fm.get("description")
        return str(desc).strip().strip("'\"") if desc else None

    def op_ping(self, r: dict[str, Any]) -> Any:
        from importlib import metadata

        return {"hermes_agent": metadata.version("hermes-agent")}


def _answer(runtime: Runtime, request: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"ok": True, "value": getattr(runtime, "op_" + request["op"])(request)}
    except Exception as exc:  # noqa: BLE001 - reported to the caller, which decides
        return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)}}


def main() -> int:
    import logging

    out = sys.stdout
    sys.stdout = sys.stderr
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="hh-") as home:
        os.environ["HERMES_HOME"] = home
        runtime = Runtime()
        for line in sys.stdin:
            request = json.loads(line)
            if "batch" in request:
                response: dict[str, Any] = {
                    "batch": [_answer(runtime, r) for r in request["batch"]]}
            else:
                response = _answer(runtime, request)
            out.write(json.dumps(response, ensure_ascii=True) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
