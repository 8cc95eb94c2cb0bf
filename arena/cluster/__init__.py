"""Running on a Dask cluster: connecting and checking the workers
(:mod:`arena.cluster.client`), the executor that hands batches to them as JSON
(:mod:`arena.cluster.executor`), TLS and what the client may unpickle
(:mod:`arena.cluster.security`)."""
