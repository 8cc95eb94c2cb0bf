"""Says it speaks protocol 2 on its protocol pipe at import time, before the host says ready
(a load fault that names both versions)."""

import os

os.write(4, b'{"protocol": 2, "name": "from-the-future"}\n')


class Bot:
    def act(self, obs):
        return obs["legal"][0]
