"""Work spread over forked processes, results in job order (matches, evaluate, the value tables)."""

from __future__ import annotations


def map_jobs(fn, jobs, workers):
    """``fn(*job)`` for each job, in order: in this process, or on a pool of forked workers (at most two jobs a
    worker in flight, so memory stays bounded)."""
    if workers == 1 or len(jobs) <= 1:
        for j in jobs:
            yield fn(*j)
        return
    import multiprocessing as mp
    import threading
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() and threading.active_count() == 1
                         else "spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx) as pool:
        queue: deque = deque()
        try:
            for j in jobs:
                queue.append(pool.submit(fn, *j))
                if len(queue) >= 2 * workers:
                    yield queue.popleft().result()
            while queue:
                yield queue.popleft().result()
        except BaseException:
            for f in queue:
                f.cancel()
            raise
