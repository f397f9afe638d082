"""`mcv serve keys create|list|revoke`: API keys kept in the service's database."""

from __future__ import annotations

import argparse

from mcv_pipelines.cli.serve_team import open_store
from mcv_pipelines.errors import UsageError
from mcv_pipelines.local_service.config import ALL_SCOPES, ServiceConfig
from mcv_pipelines.local_service.keyfile import new_key
from mcv_pipelines.local_service.store import hash_key
from mcv_pipelines.run.embedded import default_data_dir

__all__ = ["run_keys"]


def run_keys(args: argparse.Namespace) -> int:
    data_dir = args.data_dir or default_data_dir()
    store = open_store(args, data_dir)
    try:
        if args.keys_action == "create":
            scopes = tuple(s.strip() for s in str(args.scopes).split(",") if s.strip())
            unknown = sorted(set(scopes) - set(ALL_SCOPES))
            if unknown or not scopes:
                raise UsageError(
                    f"--scopes: unknown or no scope(s) {', '.join(unknown)}; known: {', '.join(ALL_SCOPES)}"
                )
            key = new_key()
            name = args.user or f"user-{hash_key(key)[:6]}"
            user_id = store.create_user(name, f"{name}@localhost", ServiceConfig.default_credits)
            if args.rate_limit is not None and args.rate_limit < 0:
                raise UsageError("--rate-limit: give 0 (no limit) or a number of jobs per minute")
            key_id = store.add_key(key, user_id, scopes, rate_limit=args.rate_limit)
            print(f"id:     {key_id}")
            print(f"user:   {name} (id {user_id})")
            print(f"scopes: {','.join(scopes)}")
            # Printed once, on purpose: only its hash is kept.
            print(f"key:    {key}")
            return 0
        if args.keys_action == "list":
            rows = store.list_keys()
            print(f"{'ID':<13} {'USER':<20} {'CREATED':<26} {'STATE':<8} {'SOURCE':<7} {'LIMIT':<8} SCOPES")
            for row in rows:
                state = "revoked" if row["revoked_at"] else "active"
                user = f"{row['user'] or '?'} ({row['user_id']})"
                source = str(row["source"]).split(":", 1)[0]
                print(
                    f"{row['id']:<13} {user:<20} {row['created_at'] or '-':<26} {state:<8} {source:<7} "
                    f"{'default' if row['rate_limit'] is None else row['rate_limit']:<8} "
                    f"{','.join(str(row['scopes']).split())}"
                )
            return 0
        if store.revoke_key(args.key_id) == 0:
            raise UsageError(
                f"keys revoke {args.key_id}: no active key has this id; see `mcv serve keys list`"
            )
        print(f"revoked {args.key_id}")
        return 0
    finally:
        store.close()
