"""Running mmenvs beyond one process pool: episodes on Ray actors (``mmenvs eval --ray``).

``ray_runner`` holds the actor and the scheduler behind ``mmenvs eval ... --ray [ADDRESS]``; ``bench``
the ``mmenvs bench`` row comparing Ray's episode throughput with the local process pool. Ray is the
``dist`` extra and is imported only when these are used.
"""
