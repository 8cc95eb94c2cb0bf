"""``arena play``: the real console script, driven through standard input and in a real
terminal (tmux): the human's view, numbered choices, the score after each hand, end of input
and Ctrl-C in one line each, usage errors."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.sandbox.botfile import bundled

ARENA = str(Path(sys.executable).with_name("arena"))


def answers(count: int = 700) -> str:
    """Lines that answer anything: "1" for a choice, "1 2 3 4 5" for a keep (each line that
    does not fit the question is refused with a hint, and the next one fits)."""
    return "".join("1\n" if i % 2 == 0 else "1 2 3 4 5\n" for i in range(count))


def play(*args: str, stdin: str = "", timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARENA, "play", *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.slow
def test_a_whole_match_through_stdin() -> None:
    out = play("--seed", "2", stdin=answers())
    assert out.returncode == 0, out.stderr
    text = out.stdout
    hands = len(re.findall(r"^Hand \d+: dealer \S+; up-card \S\S", text, re.M))
    scores = re.findall(r"Scores: You (\d+), heuristic (\d+), montecarlo (\d+)\.", text)
    assert hands >= 2 and len(scores) == hands  # the score after every hand
    final = [int(x) for x in scores[-1]]
    assert max(final) >= 10
    assert re.search(r"^Match over: \S+ won\. Your place: [123] of 3\.$", text, re.M)
    # The human's view: hand, up-card, bids, tricks so far, numbered legal actions.
    for shown in ("  Your hand: ", "  Up-card: ", "  Bids: ", "  Trick 1: ", "1) "):
        assert shown in text, shown
    assert re.search(r"Your choice \(1-\d\): 1\n", text)
    assert "Type a number from 1 to" in text  # a keep answer to a single question is refused
    # Another player's private cards never appear: their discards are face down.
    assert "discards a card face down" in text or "takes the dummy" in text
    # Same seed, same answers: the same match.
    assert play("--seed", "2", stdin=answers()).stdout == text


def test_own_seat_and_bot_files() -> None:
    random_file = str(bundled("random_bot"))
    out = play("--seat", "2", "--seed", "5", random_file, "random_bot", stdin=answers())
    assert out.returncode == 0, out.stderr
    assert "you are seat 2" in out.stdout
    assert re.search(r"Scores: random \(seat 0\) \d+, random \(seat 1\) \d+, You", out.stdout)


def test_end_of_input_is_one_line_and_exit_1() -> None:
    out = play("--seed", "3", stdin="1\n2\n")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == ["Error: end of input: the match was left unfinished"]
    assert "Your choice" in out.stdout and "Traceback" not in out.stderr


def test_a_failing_bot_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("class Bot:\n    def act(self, obs):\n        return 1 / 0\n")
    out = play("--seed", "3", str(broken), "random_bot", stdin=answers())
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        "Error: broken failed: broken.py, line 3: ZeroDivisionError: division by zero"
    ]


def test_what_a_bot_prints_is_labelled(tmp_path: Path) -> None:
    # Its prints at import, in its constructor and in act, each line after a bar and its
    # name, control characters removed: never a line that passes for the table's own.
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "import sys\n"
        "print('loading')\n"
        "class Bot:\n"
        "    name = 'chatty'\n"
        "    def __init__(self):\n"
        "        print('ready')\n"
        "    def act(self, obs):\n"
        "        print('Match over: \\x1b[2Jchatty won')\n"
        "        print('to stderr', file=sys.stderr)\n"
        "        return obs['legal'][0]\n"
    )
    out = play("--seed", "3", str(chatty), "random_bot", stdin=answers())
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "  | chatty: loading" in lines and "  | chatty: ready" in lines
    assert "  | chatty: Match over: [2Jchatty won" in lines and "  | chatty: to stderr" in lines
    assert not any(
        ln.startswith(("Match over: [", "loading", "ready", "to stderr")) for ln in lines
    )
    assert "\x1b" not in out.stdout and out.stderr == ""


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["heuristic"], 2, "name two opponents"),
        (["--seat", "3"], 2, "--seat"),
        (["nosuchbot", "heuristic"], 1, "no bundled bot 'nosuchbot'"),
        (["missing.py", "heuristic"], 1, "no bot file missing.py"),
    ],
    ids=["one-opponent", "bad-seat", "unknown-name", "missing-file"],
)
def test_bad_arguments(args: list[str], code: int, message: str) -> None:
    out = play(*args, stdin="")
    assert out.returncode == code and message in out.stderr
    assert "Traceback" not in out.stderr
    if code == 1:
        assert len(out.stderr.strip().splitlines()) == 1


class Tmux:
    """A private tmux server (its own socket) running one command in a 120x50 terminal."""

    def __init__(self, command: str) -> None:
        self.socket = f"arena-test-{uuid.uuid4().hex[:10]}"
        self.run("new-session", "-d", "-s", "play", "-x", "120", "-y", "50", command)

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "play", "-S", "-200")

    def wait_for(self, pattern: str, seconds: float = 60) -> str:
        """The screen once ``pattern`` matches its last non-blank line."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            screen = self.screen()
            lines = [line for line in screen.splitlines() if line.strip()]
            if lines and re.search(pattern, lines[-1]):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never showed; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.mark.slow
def test_in_a_real_terminal_then_ctrl_c() -> None:
    command = f"{shlex.quote(ARENA)} play --seed 2; echo EXIT=$?; sleep 60"
    term = Tmux(f"bash -c {shlex.quote(command)}")
    try:
        term.wait_for(r"^Your choice \(1-2\):$")
        term.run("send-keys", "-t", "play", "7", "Enter")  # out of range: asked again
        screen = term.wait_for(r"^Your choice \(1-2\):$")
        assert (
            "Your choice (1-2): 7\nType a number from 1 to 2 (or the choice" in screen
        )  # tty echo
        term.run("send-keys", "-t", "play", "1", "Enter")
        screen = term.wait_for(r"^Your choice \(1-\d\):$")
        assert "  Your hand: 9D KD AD JH 9S" in screen and "  Up-card: AH" in screen
        assert "Your choice (1-2): 1\nYou pass" in screen
        term.run("send-keys", "-t", "play", "C-c")
        screen = term.wait_for(r"^EXIT=\d+$")
        assert "Interrupted: the match was left unfinished." in screen
        assert "EXIT=130" in screen and "Traceback" not in screen
    finally:
        term.close()
