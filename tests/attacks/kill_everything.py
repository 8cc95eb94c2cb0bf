"""kill(-1, SIGKILL): every process it may signal. Only ever run inside verified layers."""

import os
import signal


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(-1, sig)
                print("ESCAPED? kill(-1) returned 0 for", sig)
            except OSError as e:
                print("BLOCKED kill(-1)", sig, e.errno)
        return obs["legal"][0]
