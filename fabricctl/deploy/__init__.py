"""Deploy stage: fetch running configs with Nornir, plan (diff), apply safely, lock, drift.

Modules: credentials (logins), nornir_inv (the Nornir object), context (lab or real switches),
fetch (read-only running configs), plan (plan files and staleness), service (plan orchestration
for the CLI, GitOps and tests), changed and impact (what a git change touches), apply (canary,
batches, failure policy, rollback), lock.
"""
