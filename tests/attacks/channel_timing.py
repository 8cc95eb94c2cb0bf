"""Times the gaps between its own turns, to tell how many of the other seats' decisions were
really put to a bot (the old arena played forced decisions itself, without a round trip).

It plays the first legal action and prints "T <perf_counter_ns>" at the start of every act;
the test pairs the gaps with the decisions in between (from the same match replayed in-process)
and measures how well a gap tells whether an opponent's decision in it was forced.
"""

import os
import time


class Bot:
    def act(self, obs):
        os.write(1, b"T %d\n" % time.perf_counter_ns())
        return obs["legal"][0]
