"""The service's state: what survives a restart and what every process shares.

The store (jobs, tasks, webhooks) over database/ (SQLite or PostgreSQL, with migrations), accounts
and API keys (accounts, keyfile), task documents (tasks) and how the API shows them (render), the
change feed (changes, notices), settings and the data directory (config, lock), JSON in and out
(jsontext).

May import: engines (only the URL guard the settings carry). Never files, work or http.
"""
