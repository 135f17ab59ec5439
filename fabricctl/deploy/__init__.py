"""Deploy stage: fetch running configs with Nornir, plan (diff), apply safely, lock, drift.

Modules: credentials (logins + redaction), nornir_inv (the Nornir object), fetch (read-only
running configs), plan (plan files and staleness), transport (the push interface the platform
modules implement), apply (canary, batches, failure policy, rollback), lock, cli.
"""
