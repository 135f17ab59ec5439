"""Counters for monitoring systems: the Prometheus exporter and what ships with it."""
