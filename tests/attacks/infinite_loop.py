"""Never answers: an infinite loop in act (a timeout fault)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        while True:
            pass
