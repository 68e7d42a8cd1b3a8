"""Secrets stay out of what other local users can read: every secret option takes @FILE (so nothing
secret is in /proc/PID/cmdline), a secret file others can read is warned of, the control token is
not printed, and what a private channel writes is its user's only."""

import os
import stat

from edges import TOKEN, Origin
from harness import Publisher, fetch, wait_until

SECRET = "viewer-secret-0123456789"


def private_file(path, text, mode=0o600):
    path.write_text(text + "\n")
    path.chmod(mode)
    return path


def command_line(process):
    return open(f"/proc/{process.pid}/cmdline", "rb").read().decode(errors="replace")


def test_every_secret_can_come_from_a_file_and_stays_out_of_the_process_list(tmp_path):
    origin = Origin("--ingest-token", f"@{private_file(tmp_path / 'ingest', TOKEN)}", env={"ONAIR_INGEST_TOKEN": ""})
    header = private_file(tmp_path / "header", f"Authorization: Bearer {TOKEN}")
    control = private_file(tmp_path / "control", "control-secret-0123456789")
    viewer = private_file(tmp_path / "viewer", SECRET)
    publisher = Publisher("--size", "320x180", "--push", origin.ingest(), "--push-header", f"@{header}",
                          "--control-token", f"@{control}", "--viewer-token", f"@{viewer}")
    try:
        wait_until(lambda: (r := fetch(f"{origin.base}/live/demo/media.m3u8")) and r.status == 200
                   and "#EXTINF" in r.text, 30, what="the push with the header from its file")
        for secret in (TOKEN, "control-secret-0123456789", SECRET):
            assert secret not in command_line(publisher.process)
            assert secret not in command_line(origin.process)
            assert secret not in publisher.output()
        # The control API takes the token from the file.
        answer = fetch(f"{publisher.base}/api/channels/demo/pause", method="POST",
                       headers={"Authorization": "Bearer control-secret-0123456789"})
        assert answer.status in (200, 202, 204), answer.status
        assert "can be read by other users" not in publisher.output()
    finally:
        publisher.kill()
        origin.stop()


def test_a_secret_file_others_can_read_is_warned_of(tmp_path):
    shared = private_file(tmp_path / "tokens", f"demo {TOKEN}", mode=0o644)
    origin = Origin("--ingest-tokens", str(shared))
    try:
        wait_until(lambda: "can be read by other users" in origin.output(), 10, what="the warning")
        assert f"--ingest-tokens {shared} can be read by other users (mode 644); chmod 600 {shared}" in origin.output()
    finally:
        origin.stop()


def test_the_control_token_is_kept_in_its_file_not_printed():
    publisher = Publisher("--size", "320x180")
    try:
        publisher.wait_for_segments(1)
        assert publisher.token() not in publisher.output()
        assert "control token in " in publisher.output()
    finally:
        publisher.kill()


def test_what_a_private_channel_writes_is_its_users_only(tmp_path):
    folder = tmp_path / "dvr"
    recordings = tmp_path / "rec"
    publisher = Publisher("--size", "320x180", "--viewer-token", SECRET, "--dvr", "30s", "--dvr-dir", str(folder),
                          "--record", str(recordings))
    try:
        wait_until(lambda: len([p for p in folder.rglob("*.m4s")]) >= 2 and list(recordings.rglob("*.m4s")), 30,
                   what="rewind and recording files")
        written = [p for p in list(folder.rglob("*")) + list(recordings.rglob("*")) if not p.name.startswith(".")]
        assert written
        for path in written:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
    finally:
        publisher.kill()
