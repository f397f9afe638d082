"""`mcv serve keys create|list|revoke`: API keys kept in the service's database; and
`mcv serve signing-key rotate`: a new key for upload forms and download links."""

from __future__ import annotations

import argparse
from typing import Any

from mcv_pipelines.cli.serve_team import open_store
from mcv_pipelines.errors import UsageError
from mcv_pipelines.run.embedded import default_data_dir
from mcv_pipelines.service.state.config import ALL_SCOPES, ServiceConfig
from mcv_pipelines.service.state.keyfile import new_key
from mcv_pipelines.service.state.shared_secrets import rotate_signing_key
from mcv_pipelines.service.state.store import hash_key

__all__ = ["register_keys", "run_keys", "run_signing_key"]


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


# mcv serve keys ...
def register_keys(subparsers: Any) -> None:
    keys: argparse.ArgumentParser = subparsers.add_parser(
        "keys", help="manage the API keys kept in the database", description="API keys in the database."
    )
    actions = keys.add_subparsers(dest="keys_action", required=True, metavar="create|list|revoke")
    create = actions.add_parser("create", help="make a key for a new user; the key is printed once")
    create.add_argument("--scopes", default=",".join(ALL_SCOPES), help="comma-separated (default: all)")
    create.add_argument("--user", default=None, metavar="NAME", help="the new user's name")
    create.add_argument(
        "--rate-limit",
        type=int,
        default=None,
        metavar="N",
        help="job creations per minute for this key (default: the service's --rate-limit; 0: none)",
    )
    actions.add_parser("list", help="ids, scopes, users and dates of the keys (never the keys)")
    revoke = actions.add_parser("revoke", help="revoke a key by its id (from `keys list`)")
    revoke.add_argument("key_id", metavar="ID")
    keys.set_defaults(handler=run_keys)
    signing: argparse.ArgumentParser = subparsers.add_parser(
        "signing-key",
        help="rotate the key that signs upload forms and download links",
        description="The signing key is kept in the database and shared by every process; rotate it "
        "when it may have leaked. Links and upload forms signed before are refused from then on.",
    )
    signing_actions = signing.add_subparsers(dest="signing_action", required=True, metavar="rotate")
    signing_actions.add_parser("rotate", help="make a new signing key; restart every process after")
    signing.set_defaults(handler=run_signing_key)


def run_signing_key(args: argparse.Namespace) -> int:
    store = open_store(args, args.data_dir or default_data_dir())
    try:
        rotate_signing_key(store.db)
    finally:
        store.close()
    print("rotated the signing key: restart every api and worker process to use it; links and upload")
    print("forms signed before are refused (403 INVALID_SIGNATURE): clients get fresh ones by reading")
    print("their tasks again. (A process given MCV_SIGNING_KEY uses that instead: change it there.)")
    return 0
