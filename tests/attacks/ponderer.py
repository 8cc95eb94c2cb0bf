"""An honest bot that thinks hard: about 0.6 s of CPU on each of its first three real decisions
(well within a 1.5 s decision limit), then answers at once. It prints, per pondered decision,
"PONDER <wall seconds> <cpu seconds>".
"""

import time


class Bot:
    def __init__(self):
        self.pondered = 0

    def act(self, obs):
        if self.pondered < 3:
            self.pondered += 1
            wall, cpu = time.perf_counter(), time.process_time()
            while time.process_time() - cpu < 0.6:
                pass
            took = time.perf_counter() - wall
            print(f"PONDER {took:.3f} {time.process_time() - cpu:.3f}")
        return obs["legal"][-1]
