"""Write ``guard-allowed.txt``: notes an agent keeps that the write guard must let through.

How the file was made: the sentences in ``HAND`` below were written by hand,
one a line, as an AI coding agent writes engineering notes into its permanent
memory (decisions, bugs, commands, paths, stack traces, versions, CI results,
config facts, preferences, notes in German, French, Japanese, Chinese and
Spanish). They were written from a list of what must stay allowed, without
reading the guard's rules. Where a hand-written line needs a random-looking
value (a commit hash, a UUID, a digest, a public key) it holds a slot such as
``%%H40%%``; ``TEMPLATES`` are sentence shapes, also written by hand, that
are filled several times each with generated values and picked names,
paths and versions. Every value comes from ``random.Random(SEED)`` through
hashlib, uuid and base64, so the output is the same on every run; base64
values encode readable English phrases. No value is a real credential: the
ones after a credential word are placeholders (``<token>``, ``xxxx``,
``${TOKEN}``, ``REDACTED``, ...).

Slots: ``%%H40%%`` 40-hex commit hash, ``%%HS%%`` a 7-12 hex short hash, ``%%H8%%``
and ``%%H12%%`` the first 8 or 12 hex digits of one,
``%%UUID%%``, ``%%SHA256%%`` and ``%%SHA512%%`` hex digests, ``%%B64:text%%``
base64 of the text, ``%%ACCT%%`` a 12-digit AWS account number,
``%%SSHPUB%%`` an ssh-ed25519 public key, ``%%AGE%%`` an age recipient,
``%%SRI%%`` a ``sha384-`` subresource-integrity hash, and in templates
``%%PATH%%``, ``%%VER%%``, ``%%NAME%%``, ``%%SVC%%``, ``%%BRANCH%%``,
``%%IMG%%``, ``%%PH%%`` (a placeholder value), ``%%N%%`` (a small number),
``%%B64T%%`` (base64 of a short English phrase) and ``%%NAMEL%%`` (the
person just named, lower case, as part of a host name).

Run (from the repository's top folder):
    python3 tests/data/make_guard_allowed.py
It writes ``tests/data/guard-allowed.txt`` beside itself, one sentence a
line, each at most 250 bytes of UTF-8, no tab, no leading date, each once,
hand-written lines first, and prints the count.
"""

from __future__ import annotations

import base64
import hashlib
import random
import re
import sys
import unicodedata
import uuid
from pathlib import Path

SEED = 20261201
MAX_BYTES = 250

# Written by hand, one sentence a line (slots are filled with generated values).
HAND = r"""
Decided to keep the retry logic in the HTTP client rather than in every caller; one place to tune backoff.
We chose SQLite over Postgres for the local cache because the tool must run without a server.
Decision: the migration runs in two steps, add the nullable column first, backfill, then add the NOT NULL constraint.
Agreed with Priya to drop Python 3.8 support in the next minor release; 3.9 is the new floor.
Going with click instead of argparse for the CLI because subcommands and help texts come for free.
We will not vendor the protobuf definitions; they are pulled from the schema repo at build time.
Chose filelock over fcntl directly so the same code works on macOS and Linux.
The team decided that feature flags live in config/flags.yaml, not in environment variables.
Decided against an ORM for the reporting service; raw SQL with named parameters is easier to review.
Picked structlog for logging so every line is JSON in production and readable in dev.
We keep the monorepo; splitting the frontend out was rejected because shared types would drift.
Decision from Tuesday's sync: the public API stays at v2 until the pagination rework lands.
Rate limiting moves to the gateway; the services themselves no longer count requests.
Use UTC everywhere in storage and convert to local time only in the UI layer.
Settled on 80 characters for docstrings and 100 for code, matching the existing ruff config.
The cron job for nightly exports moves from the VM to a Kubernetes CronJob next sprint.
Chose to pin transitive dependencies with pip-tools rather than Poetry; the team already knows requirements.txt.
We agreed that every public function needs a docstring that names the units of its arguments.
Tabs vs spaces settled: spaces, four per level, enforced by the pre-commit hook.
Decided that the cache is advisory: if it is missing or corrupt we rebuild it silently.
Use the existing event bus for notifications instead of adding Kafka; the volume is under 100 messages per second.
The importer now rejects files over 50 MB instead of streaming them; nobody uploads larger ones.
Going forward, error messages are one line and name the command to run next.
Keep the old endpoint alive for one release with a Deprecation header, then delete it.
We decided to squash-merge feature branches so main reads as one commit per change.
Design choice: records are fixed-width so a reader can seek to record N without scanning.
Rejected the idea of a background daemon; each command opens, reads and closes the store.
Lena prefers small PRs under 400 lines; split the refactor into three.
Moved image resizing to a worker queue because it blocked the request thread for up to two seconds.
The mobile app keeps its own copy of the translations; the web bundle loads them lazily.
Switched the default branch name from master to main across all repositories.
We settled on semantic versioning for the SDK but calendar versioning for the server.
Chose Redis streams over a list with BRPOP because consumer groups give us acknowledgements.
Agreed to keep the GraphQL schema-first approach; codegen runs in CI and fails on drift.
Terraform state stays in the S3 backend with DynamoDB locking; no local state files ever.
The healthcheck endpoint must not touch the database, only report process liveness.
New rule: no print statements in library code, use the module logger.
Decided to store money as integer cents, never floats.
The search index is rebuilt from the database on deploy instead of being migrated in place.
Dropped the custom JSON encoder in favour of orjson, which handles datetimes and dataclasses natively.
We will support only the last two LTS releases of Node.js in the build tooling.
Timeouts: 5 seconds to connect, 30 seconds to read, no retries on POST.
The wiki page on architecture is outdated; the source of truth is docs/architecture.md in the repo.
Plan: first make the parser total (never raise), then tighten the error messages.
Chose hypothesis for the property tests of the tokenizer; example-based tests missed the edge cases.
The billing service owns the invoices table; other services read it through the API only.
Decided to ship the CLI as a single wheel with an optional C extension built where a compiler exists.
Configuration precedence is flags, then environment, then the project file, then user defaults.
We do not retry on 4xx responses except 429, where we honour Retry-After.
Bug: the date parser treated 2024-02-30 as valid because it used a regex, not datetime.
Fixed an off-by-one in the pagination: the last page was skipped when the total was a multiple of the page size.
The flaky test in test_races.py was a real race: two writers could both see the file as empty.
Root cause of the 502s: the load balancer idle timeout was 60s but the app's keepalive was 75s.
Memory leak traced to an lru_cache on a method, which kept every instance alive.
The CSV export broke on names with commas because the writer was built with quoting=csv.QUOTE_NONE.
Windows paths with a trailing backslash broke the glob; normalised with pathlib first.
Found that the worker silently dropped jobs when the payload was over 1 MB; now it logs and dead-letters them.
The timezone bug: naive datetimes from the mobile client were interpreted as server-local time.
Unicode normalisation issue: café typed on macOS is NFD, the same word from Linux is NFC, so search missed it.
Crash on empty input: max() of an empty list in the summary function; added a default.
The regression in 2.3.1 came from reordering middleware; auth must run before the rate limiter.
Deadlock happened because two code paths took the locks in opposite order; now always lock store then index.
The integer overflow in the C extension only showed with files over 2 GiB; switched to Py_ssize_t.
Docker build was slow because COPY . . came before pip install, invalidating the layer cache on every edit.
The N+1 query in the orders list came from a lazy relationship; added selectinload.
A stale .pyc from an old checkout shadowed the real module; cleaning __pycache__ fixed the import error.
Race in the upload handler: the temp file was renamed before fsync, so a crash could leave it empty.
The reason the cron job ran twice: two replicas both had the scheduler enabled.
Bug in the retry decorator: it retried on KeyboardInterrupt; narrowed it to Exception.
The SVG icons were blurry on Retina because the viewBox did not match width and height.
The parser accepted trailing commas in JSON mode; strict mode now rejects them.
Intermittent test failure came from dict ordering assumptions in a fixture written for Python 3.5.
Logging double-printed every line because both the root logger and the module logger had handlers.
Found the cause of the slow startup: importing pandas at module level in the CLI entry point.
The signal handler was installed in a thread, which Python ignores; moved it to the main thread.
Bug: the progress bar went over 100 percent when the server sent a wrong Content-Length.
The test database was not truncated between tests because the fixture had scope=session.
Encoding error on Windows consoles: set PYTHONIOENCODING=utf-8 in the runner.
The infinite loop in the scheduler happened when two jobs had the same next_run timestamp.
Fixed: memo crashed with BrokenPipeError when piped into head; now it exits quietly.
The cache key did not include the locale, so German users sometimes saw English text.
Bug in the rounding of VAT: we rounded per line instead of per invoice, off by one cent now and then.
Symlinked project folders were treated as two different projects; resolve() before comparing.
Found that the CI runner had only 2 GB of RAM, which is why the webpack build was OOM-killed.
The 'Permission denied' on the socket came from SELinux, not file modes; added the right context.
Sorting was unstable because we sorted by a float score only; now ties break on id.
The websocket disconnected every 100 seconds because of Cloudflare's idle timeout; added a ping every 30s.
Bug: the upload progress was computed from the compressed size but displayed against the raw size.
The locale-dependent float parsing broke in Germany: 1,5 parsed as 15; use Decimal with explicit format.
Off-by-one in the range header handling: bytes=0-99 is 100 bytes, inclusive on both ends.
The migration failed on MySQL 5.7 because it used a functional index, which needs 8.0.
The pytest collection error came from a tests/__init__.py missing in one subfolder.
Duplicate notifications were caused by the webhook handler not being idempotent; dedupe on the event id now.
Heisenbug: the assertion only failed with -n 2 because two workers shared a temp folder name.
Fix for the flaky e2e test: wait for the network to be idle instead of a fixed sleep.
The Makefile used bash syntax but the default shell is sh on Debian; added SHELL := /bin/bash.
Ran pytest -q -n 0 tests/test_guard.py and all 48 tests passed.
Ran `git bisect` between v1.4.0 and v1.5.0; the first bad commit is the one that changed the tokenizer.
Command that rebuilds the dev database: make db-reset && make seed.
`docker compose up -d postgres redis` is enough for the backend tests; the frontend is not needed.
Use `npm ci` in CI, never `npm install`, so the lockfile is respected exactly.
Ran `ruff check --fix .` which fixed 37 import-order issues.
`kubectl rollout restart deployment/api -n staging` after changing the ConfigMap.
`git log --oneline --graph --decorate -20` is the quickest way to see where the branches diverged.
To profile: python -m cProfile -o out.prof -m optmem recall "lock" then snakeviz out.prof.
`pip install -e '.[test,fast]'` installs the test extras and google-re2.
`terraform plan -out=tfplan` then `terraform apply tfplan`; never apply without a saved plan.
Run `pre-commit run --all-files` before pushing; CI runs the same hooks.
`go test ./... -race -count=1` catches the data race in the cache package.
`cargo build --release --target x86_64-unknown-linux-musl` produces the static binary.
Used `strace -f -e trace=openat python -m optmem` to see which config files are read.
`journalctl -u nginx --since "1 hour ago"` shows the upstream errors.
Regenerate the lockfile with `uv pip compile pyproject.toml -o requirements.lock`.
`gh pr checks 412 --watch` waits for CI on the pull request.
`helm upgrade --install api ./charts/api -f values/staging.yaml` deploys to staging.
`psql -h localhost -U app -d app_dev -c '\dt'` lists the tables in the dev database.
Clean rebuild: `rm -rf build dist *.egg-info && python -m build`.
`tox -e py39,py313` runs the oldest and newest supported interpreters.
Ran `mypy --strict optmem/` and got 12 errors, all in the harness module.
`git worktree add ../wt/feature feature` gives each branch its own folder.
`aws s3 sync ./site s3://docs-bucket-prod --delete` publishes the docs.
`openssl x509 -in cert.pem -noout -dates` shows the certificate's expiry.
`du -sh ~/.cache/pip` showed 4.2 GB; cleared it with pip cache purge.
`ss -tlnp | grep 5432` confirmed Postgres listens only on localhost.
Run the benchmark with `python bench/recall.py --records 100000 --repeat 5`.
`git rebase -i HEAD~5` to squash the fixup commits before review.
`find . -name '*.orig' -delete` after the merge left backup files everywhere.
`python -X importtime -c 'import optmem' 2>&1 | sort -t'|' -k2 -n | tail` lists the slowest imports.
`perf record -g ./scan bigfile` then `perf report` showed memchr dominating.
`jq '.dependencies | keys' package.json` lists the direct dependencies.
`docker system prune -af --volumes` freed 18 GB on the build machine.
`make -j2 test` because the box has only two cores.
`sqlite3 store.db 'PRAGMA integrity_check;'` returned ok.
`curl -sS https://api.example.com/healthz` returns {"status":"ok"} from staging.
`git cherry-pick -x` keeps a reference to the original commit in the message.
`npx playwright test --project=chromium` runs only the Chromium e2e suite.
`pytest --lf` reruns only the tests that failed last time.
Run `memo recall deploy` to see earlier notes about the deploy pipeline.
`valgrind --leak-check=full ./a.out` reported no leaks after the fix.
The store lives in ~/.local/share/optmem/ and each project gets its own subfolder.
Config is read from ~/.config/optmem/config.toml, then from .optmem.toml in the project root.
The nginx site config is /etc/nginx/sites-available/api.conf, symlinked into sites-enabled.
Logs for the worker go to /var/log/worker/worker.log and rotate daily via logrotate.
The entry point is src/app/main.py; the FastAPI app object is created in src/app/factory.py.
Fixtures for the parser tests are in tests/fixtures/parser/, one file per case.
The Windows build writes to C:\Users\runner\AppData\Local\Temp\build-cache.
On macOS the app support folder is ~/Library/Application Support/Optmem.
The systemd unit is /etc/systemd/system/memo-sync.service; reload with systemctl daemon-reload.
Generated code goes to gen/proto/ and is git-ignored; run make proto to create it.
The migrations folder is db/migrations/ and files are named 0042_add_index_on_created_at.sql.
Static assets are served from /srv/www/static by nginx, not by the app.
The GitHub Actions workflow is .github/workflows/ci.yml; the release one is release.yml.
Look in frontend/src/components/Table/Table.tsx for the sorting logic.
The Helm chart is charts/api/, values per environment in charts/api/values-*.yaml.
Secrets are mounted by Kubernetes at /var/run/secrets/app/, never baked into the image.
The Dockerfile for the worker is docker/worker.Dockerfile, built with the repo root as context.
The vendored copy of the library sits in third_party/miniz/ with its LICENSE beside it.
Temporary files go to $XDG_RUNTIME_DIR when set, else to /tmp.
The private key file is ~/.ssh/id_ed25519; the agent only ever reads the .pub next to it.
SSH config for the bastion is in ~/.ssh/config under Host bastion-prod.
Kubeconfig path is ~/.kube/config; the staging context is called staging-eu.
The AWS CLI profiles are in ~/.aws/config; credentials themselves come from SSO.
pip's cache is at ~/.cache/pip and the venv at .venv in the worktree.
The coverage report is written to htmlcov/index.html.
The C extension source is optmem/_scan.c and setup.py builds it when a compiler exists.
Pre-commit config: .pre-commit-config.yaml at the repo root, pinned revisions.
The git hooks installed by the tool live in .git/hooks/pre-push.
TLS certificate path on the load balancer host: /etc/ssl/certs/api.example.com.pem.
The TLS private key path is /etc/ssl/private/api.example.com.key, mode 0600, owned by root.
Editor settings are shared in .editorconfig and .vscode/settings.json.
Node modules are cached by CI under ~/.npm keyed by the hash of package-lock.json.
The Rust workspace has crates/core, crates/cli and crates/ffi.
The Go module path is github.com/example-org/inventory and the main package is cmd/inventory.
Sample data for local runs is in scripts/seed/users.json (fake names only).
Traceback (most recent call last): File "optmem/cli.py", line 212, in main: KeyError: 'project'
The stack trace ends in sqlite3.OperationalError: database is locked, raised from store.py line 88.
TypeError: expected str, bytes or os.PathLike object, not NoneType, at config.py:41 when HOME is unset.
java.lang.NullPointerException at com.example.billing.InvoiceService.total(InvoiceService.java:117)
panic: runtime error: index out of range [3] with length 3, goroutine 1 [running]: main.parse(...)
thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/config.rs:54:31
UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte, when reading a UTF-16 file.
RecursionError: maximum recursion depth exceeded while calling a Python object, in the tree walker for deep JSON.
Error: Cannot find module '@/utils/format' from 'src/pages/index.tsx' in Jest; moduleNameMapper was missing.
ModuleNotFoundError: No module named 'optmem._scan' means the C extension was not built; the pure Python path is used.
psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint "users_email_key"
ERROR 1452 (23000): Cannot add or update a child row: a foreign key constraint fails on orders.customer_id.
django.db.utils.ProgrammingError: relation "accounts_profile" does not exist; the migration was not applied.
Segmentation fault (core dumped) in the C scanner when the buffer length was 0; fixed with an early return.
OSError: [Errno 24] Too many open files during the parallel import; raised the ulimit and closed files sooner.
FileNotFoundError: [Errno 2] No such file or directory: '/tmp/optmem-test/store/index.bin'
AssertionError: assert 3 == 4 in tests/test_cover.py::test_tiling[budget-64]
ConnectionResetError: [Errno 104] Connection reset by peer, only behind the corporate proxy.
TimeoutError from asyncio.wait_for after 30s when the MCP server never answered initialize.
requests.exceptions.SSLError: certificate verify failed: unable to get local issuer certificate, fixed by installing ca-certificates.
Uncaught TypeError: Cannot read properties of undefined (reading 'map') at OrderList.render (OrderList.jsx:23)
fatal: refusing to merge unrelated histories, solved with --allow-unrelated-histories for the one-time import.
error[E0502]: cannot borrow `self.buf` as mutable because it is also borrowed as immutable
npm ERR! code ERESOLVE unable to resolve dependency tree: react@18 vs a peer dep on react@17.
PermissionError: [Errno 13] Permission denied: '/var/lib/app/uploads' because the container runs as uid 1000.
OOMKilled: the pod hit its 512Mi limit while loading the whole CSV into memory.
Python 3.13.1 is the newest interpreter we test; 3.9.21 the oldest.
Upgraded Django from 4.2.16 to 5.1.3; the only breaking change for us was the removed index_together.
Node 20.18.0 LTS is pinned in .nvmrc.
Postgres 16.4 in production, 15.8 still on the analytics replica.
click 8.1.7 changed how default values show in help; our snapshot tests needed updating.
The bug is fixed in requests 2.32.3; anything from 2.32.0 to 2.32.2 is affected.
Go 1.23.2 is required because of the range-over-func syntax in the iterator package.
Rust 1.82.0 stable; the MSRV stays at 1.74.
React 18.3.1 and Next.js 14.2.15 in the dashboard; Next 15 waits for the app router migration.
Kubernetes cluster runs 1.30.5; 1.31 upgrade planned for January.
Ubuntu 24.04 LTS on the build hosts, kernel 6.8.0-45-generic.
google-re2 1.1.20250805 is the last release with a CPython 3.9 wheel.
TypeScript 5.6.3 with strict mode; ts-node was replaced by tsx 4.19.1.
OpenSSL 3.0.13 on the servers; the client library needs at least 1.1.1.
The API reports version 2.14.0-rc.2 on /version in staging.
Terraform 1.9.8 and the AWS provider 5.72.1 are pinned in versions.tf.
pytest 8.3.3, pytest-xdist 3.6.1 and hypothesis 6.115.0 are the test stack.
The SDK went from 0.9.12 to 1.0.0 with no API changes, just the stability promise.
numpy 2.1.2 broke the old pickles; we pin numpy<2 for the model loader until they are re-exported.
SQLite 3.45.1 ships with the system Python; the WAL2 mode is not available there.
Version bump: optmem 0.2.0 to 0.3.0.dev1 on main after the release branch was cut.
Debian bookworm images come with Python 3.11.2; we build our own 3.12 image.
curl 8.5.0 on the runner supports --fail-with-body, which older versions lack.
The docs are at https://docs.example.com/guide/getting-started and the API reference at /reference/v2.
The upstream issue is https://github.com/pallets/click/issues with the label "bug"; nothing filed about this yet.
Release notes live at https://github.com/example-org/optmem/releases/tag/v0.2.0.
Staging URL: https://staging.example.internal/app/ (VPN only).
The status page is https://status.example.com and incidents are posted there first.
PyPI page: https://pypi.org/project/click/ shows 8.1.7 as the latest.
The RFC for the Retry-After header is https://www.rfc-editor.org/rfc/rfc9110#field.retry-after.
Grafana dashboard for the API latency: https://grafana.example.com/d/api-latency/api?orgId=1&from=now-6h
The OpenAPI spec is served at http://localhost:8000/openapi.json during development.
The design doc draft is at https://wiki.example.com/display/ENG/Search+Rework (read access for everyone).
The container registry is ghcr.io/example-org and images are tagged with the short commit.
Sentry project URL: https://sentry.example.com/organizations/example/issues/?project=12
Mirror for the Debian packages: http://deb.debian.org/debian bookworm main.
The MDN page https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Cache-Control explains no-store vs no-cache.
S3 console link for the backups bucket: https://s3.console.aws.amazon.com/s3/buckets/backups-prod?region=eu-west-1
Local Jaeger UI at http://127.0.0.1:16686 shows the traces when OTEL_EXPORTER_OTLP_ENDPOINT is set.
CI is green on main after the lockfile fix; all 1,412 tests passed in 3m 41s.
The GitHub Actions run failed on macOS only: the temp path contains /private/var, which broke the path comparison.
CI job lint failed: ruff found an unused import in optmem/harness/setup.py.
Windows CI job timed out after 60 minutes; the test that spawns subprocesses hangs there.
The nightly pipeline has been red since Friday because the external sandbox API is down.
Coverage dropped from 91% to 87% after the harness module landed; tests for it are the next task.
The build on Python 3.9 fails because of a match statement in the new module.
Buildkite step 'integration' is flaky about 1 in 20 runs; tracked, not fixed.
GitLab pipeline 8812 passed, the deploy to staging is manual and waits for approval.
CI caches the pip downloads keyed on the hash of requirements.lock; a cache miss adds two minutes.
The release workflow builds wheels for manylinux2014 and musllinux_1_2 with cibuildwheel.
Test matrix: Python 3.9 to 3.13 on ubuntu-latest, only 3.12 on macos-latest and windows-latest.
The docs job fails when Sphinx gets a warning, because of -W in the Makefile.
CI on the PR is waiting for a maintainer to approve running workflows from a first-time contributor.
CodeQL flagged a possible path traversal in the archive extractor; fixed by checking resolved paths.
Dependabot opened 14 PRs overnight; grouped updates are now configured per ecosystem.
The required checks are lint, test (3.9), test (3.13) and docs; the rest are informational.
Jenkins job api-deploy #1532 failed at the smoke test stage: /healthz returned 503 for 90 seconds.
CI artefacts are kept for 7 days; the coverage XML is uploaded to Codecov on main only.
All green except the benchmark job, which is allowed to fail and only reports numbers.
The connection pool size is 20 per worker and max_overflow is 5.
Gunicorn runs 4 workers with the uvicorn worker class and a 120 second graceful timeout.
LOG_LEVEL defaults to INFO; set it to DEBUG only locally, it logs request bodies.
The staging database has statement_timeout = 30s; production has 10s.
Redis maxmemory is 2gb with the allkeys-lru policy.
Feature flag new_checkout is on for 10 percent of users in the EU region.
The session timeout is 30 minutes of inactivity, with an absolute limit of 12 hours.
CORS allows only https://app.example.com and http://localhost:5173.
The upload limit in nginx is client_max_body_size 25m.
max_connections on Postgres is 200; PgBouncer sits in front in transaction mode.
The Celery beat schedule runs the cleanup task every night at 03:15 UTC.
Kubernetes requests are 250m CPU and 256Mi memory; limits are 1 CPU and 512Mi.
The HPA scales the API between 3 and 12 replicas at 70 percent CPU.
TZ is set to UTC in every container; do not rely on the host time zone.
The default page size of the list endpoints is 50 and the maximum is 500.
Cookie settings: Secure, HttpOnly, SameSite=Lax, 14 day expiry for the remember-me cookie.
The cookie banner only appears for visitors from the EU, based on the CDN's country header.
The retry policy for webhooks is 5 attempts with exponential backoff starting at 10 seconds.
Webhook retries stop after 24 hours and the event is marked failed in the dashboard.
ruff is configured with line-length = 100 and the isort rules enabled.
mypy runs with disallow_untyped_defs = true only for the optmem package, not tests.
The Prometheus scrape interval is 15s; alerts fire after 5 minutes above threshold.
The JVM runs with -Xmx2g -XX:+UseG1GC in the payments service.
Sentry sample rate for traces is 0.1 in production and 1.0 in staging.
The CDN caches static assets for a year; HTML is cached for 60 seconds.
DNS TTL for api.example.com is 300 seconds, lowered to 60 before migrations.
The backup retention is 30 daily, 12 monthly and 7 yearly snapshots.
The default locale is en-US; supported ones are de-DE, fr-FR, ja-JP, zh-CN and es-ES.
OPTMEM_HOME overrides the store location; the tests set it to a temp folder.
The worker concurrency is set to 8 because each job is mostly waiting on I/O.
The linter treats warnings as errors in CI but not in the editor.
git config pull.rebase true is the team default; merges only via the web UI.
The auth flow is OAuth 2.0 authorization code with PKCE for the SPA and the mobile app.
The API uses the bearer scheme in the Authorization header; the value comes from the login endpoint.
The seed data script creates 50 fake users and 200 orders; run it only against the dev database.
Max request body for the JSON API is 1 MiB; larger payloads go through presigned uploads.
Mara likes commit messages in the imperative mood and no trailing period.
Jonas wants every new setting documented in docs/configuration.md in the same PR.
The user prefers answers in German but code comments in English.
Priya asked that tests never sleep; use events or polling with a timeout instead.
The maintainer prefers one commit per logical change over one big squash at the end.
Tomás prefers pytest fixtures over setUp methods and wants parametrize for table-driven tests.
The user does not want Black; the project uses ruff format with its defaults.
Ahmed wants PR descriptions to start with the user-visible effect, then the implementation.
The user prefers short answers with the command first and the explanation after.
Kenji prefers type hints everywhere, including in tests.
The user asked me to never push directly to main, always open a PR.
Sofia reviews frontend changes and wants screenshots for every UI change.
The team prefers British spelling in docs: behaviour, colour, licence as a noun.
The user wants the changelog updated in the same commit as the change.
Ana prefers to run the full test suite herself before merging, so do not merge on her behalf.
The user dislikes emojis in commit messages.
The user likes dark mode screenshots in the docs.
Wei asked to keep the public API backwards compatible until 1.0, even for misnamed functions.
The user prefers uv over pip for new projects but this repository stays on pip.
The product owner prefers that error messages do not mention internal service names.
Die Tests laufen jetzt unter Python 3.13 durch, nur test_races.py ist noch instabil.
Entscheidung: Wir speichern alle Zeitstempel in UTC und wandeln erst in der Oberfläche um.
Der Fehler lag in der Zeitzonenbehandlung, naive datetime-Objekte wurden als Ortszeit gelesen.
Hinweis: Der Build-Cache liegt unter ~/.cache/build und kann gefahrlos gelöscht werden.
Der Nutzer möchte Antworten auf Deutsch, aber Commit-Nachrichten auf Englisch.
Die Passwortrichtlinie verlangt mindestens 12 Zeichen, das ist in der Doku zu ergänzen.
Der API-Schlüssel wird monatlich rotiert; das erledigt das Plattform-Team, nicht wir.
Achtung: Die Migration 0042 dauert auf der Produktionsdatenbank etwa 20 Minuten.
Wichtig für das Deployment: erst die Datenbank migrieren, dann die neuen Pods ausrollen.
Der Schlüssel zum Erfolg war, die Abfrage in zwei Schritte aufzuteilen.
Das Token-Budget für den Kontext liegt bei 200.000 Tokens, davon sind 30.000 für Notizen reserviert.
Der Fehler tritt nur unter Windows auf, weil dort Pfade mit Backslash getrennt werden.
Die Konfigurationsdatei heißt .optmem.toml und liegt im Wurzelverzeichnis des Projekts.
Le déploiement en production se fait le mardi et le jeudi uniquement, jamais le vendredi.
Décision : on garde SQLite pour le cache local, Postgres reste réservé au serveur.
Le bug venait d'un décalage d'un jour dans le calcul des dates de facturation.
L'utilisateur préfère des messages de commit courts, à l'impératif.
La politique de mots de passe exige au moins 12 caractères et un caractère spécial.
La clé primaire de la table commandes est composite : (client_id, numero).
Le jeton d'accès expire au bout d'une heure ; le client le renouvelle automatiquement.
La CI est de nouveau verte après la correction du fichier de verrouillage.
Attention : le cron tourne en UTC, donc à 4 h 15 heure de Paris en hiver.
Le secret de la performance ici, c'est le cache des résultats intermédiaires.
Les tests d'intégration ont besoin de Docker ; sans lui ils sont ignorés avec un message clair.
La documentation est en anglais, mais les messages d'erreur sont traduits en français.
デプロイは毎週火曜日の午前中に行う。金曜日のデプロイは禁止。
原因はタイムゾーンの扱いだった。naive な datetime がローカル時刻として解釈されていた。
テストは Python 3.9 から 3.13 まですべて通った。
ユーザーは日本語での回答を好むが、コードのコメントは英語で書くこと。
主キーは UUID ではなく連番の整数にする。結合が速いため。
トークン上限は 8,192 トークンなので、長いログは要約してから渡す。
設定ファイルは ~/.config/optmem/config.toml にある。
パスワードポリシーは 12 文字以上。管理画面の文言を修正する必要あり。
CI が macOS だけで失敗する。一時ディレクトリのパスが /private/var になるのが原因。
キャッシュが壊れていたら削除して再生成すればよい。データは失われない。
APIキーのローテーションは毎月行われる。担当はインフラチーム。
ビルド時間が 12 分から 4 分に短縮された。レイヤーキャッシュの順序を直したため。
决定：本地缓存继续使用 SQLite，服务器端使用 PostgreSQL。
问题的根本原因是分页计算中的差一错误，最后一页被跳过了。
用户希望用中文回答，但提交信息要用英文写。
测试在 Python 3.9 到 3.13 上全部通过，只有 Windows 上有一个不稳定的测试。
主键使用自增整数，外键约束在迁移 0042 中添加。
令牌预算是每次请求 4,000 个 token，超过时先做摘要。
密码策略要求至少 12 个字符，登录页面的提示文字需要更新。
配置文件位于 ~/.config/optmem/config.toml，项目级配置在 .optmem.toml。
部署前必须先运行数据库迁移，然后再滚动更新 Pod。
关键的发现是：慢查询来自缺失的索引，而不是网络延迟。
这个秘诀就是把热点数据放进 Redis，命中率从 60% 提升到 95%。
CI 构建失败是因为 Node 版本不对，.nvmrc 里写的是 20.18.0。
Decisión: las fechas se guardan siempre en UTC y se convierten solo en la interfaz.
El error venía de un desbordamiento de enteros en la extensión en C con archivos de más de 2 GiB.
El usuario prefiere respuestas en español y mensajes de commit en inglés.
La política de contraseñas exige al menos 12 caracteres; hay que actualizar el formulario de registro.
La clave primaria de la tabla pedidos es un entero autoincremental.
La rotación de la clave de API es mensual y la hace el equipo de plataforma.
El presupuesto de tokens por petición es de 4.000; los registros largos se resumen antes.
Los tests pasan en Python 3.9 hasta 3.13; en Windows hay uno inestable todavía.
Nota: el despliegue a producción solo se hace de lunes a jueves.
El secreto del rendimiento fue cachear las consultas de catálogo durante cinco minutos.
La integración continua vuelve a estar en verde después de arreglar el lockfile.
El archivo de configuración está en ~/.config/optmem/config.toml.
Tests are green again ✅ after pinning the lockfile.
Deploy done 🚀 api 2.14.0 is live in eu-west-1 and us-east-1.
Flaky test 🐛 in test_races.py: fails about once in 30 runs with -n 2.
🔥 Hotfix shipped for the checkout 500s; root cause was a missing null check.
Build time went from 12 min to 4 min 🎉 after reordering the Dockerfile layers.
⚠️ Do not run the seed script against production; it truncates the users table first.
📝 The design doc for the search rework is in docs/design/search.md.
🔑 The key insight: the records are fixed-width, so binary search works without an index.
🔒 The password policy now requires 12 characters and blocks the 10,000 most common passwords.
🧪 New property tests for the tokenizer found two crashes on empty input.
The key insight is that append-only files never need a lock for readers.
The key point from the review: the cache must be safe to delete at any time.
Key takeaway from the incident: alerts fired, but nobody was on the rotation that weekend.
The primary key of the orders table is (customer_id, order_no), not a surrogate id.
Added a foreign key from invoices.customer_id to customers.id with ON DELETE RESTRICT.
The composite key on (tenant_id, slug) replaces the old unique index on slug alone.
API key rotation is monthly and handled by the platform team's automation.
The API key for the staging sandbox is issued per developer; ask the platform team for one.
API keys are stored in the vault, never in the repository or in CI variables in plain text.
The password policy requires 12 characters, one digit and no reuse of the last five passwords.
Password reset links expire after 30 minutes and can be used once.
The password field in the signup form needs autocomplete="new-password" for password managers.
Password hashing uses argon2id with the library's default parameters.
The token budget for one recall answer is 2,000 tokens; longer answers get truncated with a note.
Token limits: the model accepts 200k tokens of context but we keep prompts under 50k.
The tokenizer splits on whitespace and punctuation, then lowercases; no stemming.
The tokenizer counts emoji as one token each, which surprised us in the budget estimate.
Access tokens expire after one hour; refresh tokens after 30 days.
The CSRF token is rendered into a meta tag and sent back in the X-CSRF-Token header.
Pagination uses an opaque continuation token returned in next_page_token.
The lexer emits a token for every keyword, identifier and literal, with line and column.
The secret sauce of the ranking is the recency boost, not the BM25 weights.
There is no secret to the speedup: we just stopped parsing the same file twice.
The secret manager holds the database credentials; the app reads them at startup.
Secrets in CI come from the environment's protected variables and are masked in logs.
The Kubernetes secret is created by the external-secrets operator from the vault path.
The secret scanning alert turned out to be a test fixture with an obviously fake value.
Keyboard shortcuts: Ctrl+K opens the command palette, Ctrl+Shift+P in VS Code does the same.
The keyboard shortcut for toggling comments is Cmd+/ on macOS.
Keyboard focus gets lost after closing the modal; return focus to the trigger button.
The key repeat rate on the CI VM does not matter, but xdotool needs a display.
The session timeout was raised from 15 to 30 minutes after user complaints.
Session cookies are now marked Secure and HttpOnly; the cookie banner text was updated too.
The SSH key for the deploy user is managed by the config management, not by hand.
Public keys of the team are in infra/ssh/authorized_keys, one per line with a comment naming the owner.
The signing key for releases is kept offline; CI signs with a short-lived Sigstore certificate instead.
Key derivation for the encrypted backups uses scrypt; the parameters are in backup/crypto.py.
The encryption key is fetched from KMS at startup and never written to disk.
The dictionary key must be a string because the JSON encoder rejects tuples.
KeyError on 'user_id' happened because the webhook payload nests it under data.
The key order of the JSON output is stable since we pass sort_keys=True.
The cache key now includes the locale and the schema version.
Redis keys follow the pattern app:env:entity:id, for example app:prod:user:42.
Key rotation for the JWT signing keys keeps the previous key valid for 24 hours.
The license key check was removed from the open-source build.
Idempotency keys are accepted on POST /payments and stored for 24 hours.
The partition key for the events table is the day, which keeps queries on one partition.
The sort key of the DynamoDB table is created_at, the partition key is tenant_id.
Hotkeys in the editor conflict with the browser's own shortcuts on Firefox.
The token refresh logic had a race: two tabs refreshed at once and one got a 401.
The auth flow breaks in Safari because third-party cookies are blocked; moved to a first-party domain.
Bearer tokens are validated against the JWKS endpoint, cached for ten minutes.
The OAuth client secret is configured per environment in the secret manager, not in code.
The password is never logged; the request logger drops the body of /login entirely.
Do not store passwords in the notes; store where they live (the vault path) instead.
Remember: the staging secrets are in the vault under kv/staging/api, readable by the dev group.
The service account token is mounted automatically; automountServiceAccountToken is false for the worker.
Personal access tokens for the CI bot are fine-grained and limited to the two repositories.
The token count of a note is estimated as bytes divided by four.
Rotated the webhook signing secret after the contractor left; the old one is revoked.
The secret key setting of Django is read from the environment in production.
Secret detection in pre-commit runs gitleaks with the default rules.
We do not commit .env files; .env.example lists the variable names with empty values.
The password manager for the team is shared through 1Password vaults per environment.
Password login is disabled on the servers; only SSH keys are accepted.
Two-factor authentication is mandatory for everyone with merge rights.
The login page rate limit is 5 attempts per minute per IP and per account.
The key management doc explains who can rotate which credential and how.
Keyless signing with cosign is used for the container images.
The token bucket rate limiter refills 10 tokens per second with a burst of 20.
The primary key collision came from two importers generating ids from the same sequence.
Lookup is O(1) because the key is the record's byte offset divided by the record width.
The "secret" admin page is just an unlinked route; it still checks the admin role.
API keys can be scoped to read-only; the dashboard shows the scope next to each key's name.
The keystore for the Android build is on the release machine only; CI builds are unsigned.
Tokens in the lexer carry their source span so error messages can point at the column.
The key takeaway from the load test: the bottleneck is the database, not the app servers.
Foreign keys are enforced in SQLite only after PRAGMA foreign_keys = ON for each connection.
The primary key is a UUIDv7 so that inserts stay roughly ordered in the B-tree.
The access key id is shown in the IAM console; the secret half is only shown once at creation.
The API key is read from the environment variable API_KEY; the code never has a default for it.
Set OPENAI_API_KEY in your shell profile, not in the repository.
The GITHUB_TOKEN in Actions has read-only permissions by default in this organisation.
The NPM_TOKEN secret is used only by the publish job and only on tags.
The token expired error (401 with error=invalid_token) means the client must refresh.
If the token is missing, the CLI prints: Run: memo login, and exits with status 2.
The password prompt uses getpass so nothing is echoed to the terminal.
Master password prompts in the vault CLI time out after 5 minutes.
The secret rotation job runs on the first Monday of each month at 09:00 UTC.
API key is `<token>` in the example config; replace it with your own from the dashboard.
The README shows API_KEY=your-api-key-here as the value to replace.
In the docs the header is written as Authorization: Bearer <token>.
password: changeme is the default in the docker-compose file for the local database only.
The example .env has SECRET_KEY=xxxx so the app starts locally without a real secret.
Connection string in the docs: postgres://localhost:5432/app with the password passed as ${DB_PASSWORD}.
Use token: ${GITHUB_TOKEN} in the workflow; the value is injected by Actions.
The curl example in the README is curl -H "Authorization: Bearer $API_KEY" https://api.example.com/v1/items.
API key is REDACTED in the pasted log; the real one was never in the ticket.
The log line shows password=*** because the logger masks that field.
The sample config has api_key: <your-api-key> and a comment saying where to get one.
Token: xxxx-xxxx-xxxx-xxxx is what the UI shows until the user clicks reveal.
The password is <your password> in the tutorial; readers must fill in their own.
secret: ${{ secrets.DEPLOY_KEY }} is how the workflow passes the deploy key to the action.
export API_KEY=... in the shell, then run the integration tests with make itest.
The API key is set with `memo config set api_key <token>` in the docs example.
The Helm values file has password: "" and the chart fails fast when it is empty.
In the bug report the user pasted token=[REDACTED]; their tooling masked it already.
The default admin password is changeme and the installer forces a change on first login.
The example in the docs reads client_secret = "your-client-secret-here".
The error message prints Authorization: Bearer ***** instead of the header value.
The placeholder for the token in the config template is {{ api_token }}, filled by Ansible from the vault.
The test uses api_key="test-key" against the mock server, which accepts any value.
The password parameter in the API docs example is "<PASSWORD>" in capitals.
Never paste the real key; write API key is <redacted> in the ticket.
The environment template lists DATABASE_URL, REDIS_URL and SECRET_KEY, all set to changeme.
The token in the screenshot is blurred; the text in the alt attribute says token: <hidden>.
The CLI's --token option defaults to $OPTMEM_TOKEN when set.
api_key = os.environ["API_KEY"] in settings.py; there is no fallback value.
The sample request body is {"username": "demo", "password": "<password>"}.
In the compose file: POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-changeme} for local use.
The secret is '********' in the UI and the API never returns it after creation.
The Terraform variable db_password has sensitive = true and no default.
Password: see the vault entry kv/dev/postgres, not this note.
The key for the staging bucket is in the shared vault; the note only keeps its path.
Example: export AWS_ACCESS_KEY_ID=<access-key-id> AWS_SECRET_ACCESS_KEY=<secret-access-key>
Slack token placeholder in the example config is xoxb-your-token-here.
The docs use ghp_XXXXXXXXXXXXXXXXXXXX as a stand-in for a GitHub token.
The placeholder key sk-... in the README is truncated on purpose.
Stripe's test mode keys are configured in the vault too; the docs show sk_test_xxx as a placeholder.
The bearer token is `$TOKEN` in every snippet of the runbook.
token = "<insert token>" in the snippet; the reader must fill it in.
Set PASSWORD=<your password> before running the backup script.
The secret value shown in the audit log is [masked] by design.
API_KEY=dummy is enough for the unit tests because the HTTP layer is mocked.
The example webhook secret in the docs is whsec_xxxxxxxx.
Authorization header in the HAR file was replaced by REDACTED before sharing.
The regression was introduced in commit %%H40%% when the tokenizer was rewritten.
Reverted %%H40%% because it broke the Windows build; the fix needs a different approach.
git bisect says the first bad commit is %%H40%%.
Cherry-picked %%HS%% onto release/2.14 for the hotfix.
The fix landed in %%HS%% on main and was backported as %%HS%%.
Deployed commit %%H40%% to production at the start of the maintenance window.
HEAD of main is %%HS%% after the merge of the lockfile PR.
The release tag v0.2.0 points at %%H40%%.
Pinned the action to actions/checkout@%%H40%% instead of the v4 tag.
The submodule third_party/miniz is at %%H40%%.
Commit %%HS%% adds the C counter; %%HS%% makes recall use it.
The last known good build was %%HS%%, everything after it fails the smoke test.
Rebased the branch onto %%HS%% and resolved the conflict in store.py.
The merge base of the two branches is %%H40%%.
The vendored copy matches upstream at %%H40%%; no local patches.
Squashed the three fixups into %%HS%% before review.
The bug is not in %%HS%% (tested), so it came with the dependency bump after it.
The pre-commit hook for ruff is pinned to rev %%H40%%.
Pipeline run for %%HS%% passed all jobs.
Force-pushed the branch, the old head %%HS%% is still in the reflog if needed.
Tagged %%HS%% as v1.4.2 after the changelog fix.
The Go dependency is pinned to the pseudo-version v0.0.0-20241012093512-%%H12%%.
git show %%HS%% --stat lists only the test files; the real change was in the parent.
The upstream fix is commit %%H40%% in the library; we need a release that includes it.
The nix flake input nixpkgs is locked to rev %%H40%%.
Our fork diverges from upstream at %%HS%%; rebasing onto their main is on the list.
ran git revert %%HS%% --no-edit and pushed to the hotfix branch
The request id in the failing log line is %%UUID%%.
Tenant %%UUID%% is the one with the corrupted settings row.
The job with id %%UUID%% stayed in the running state for six hours.
The correlation id %%UUID%% ties the gateway log to the worker log.
Created the test project with id %%UUID%% in staging.
The Sentry event %%UUID%% has the full stack trace of the crash.
The migration renamed the row %%UUID%% by accident; restored from the backup.
Session %%UUID%% was the one that hit the timeout in the harness log.
The trace id for the slow request is %%UUID%%; 4.2 seconds were spent in the search call.
The GCP project number is 482917365120 and the folder id for sandboxes is %%UUID%%.
Device %%UUID%% keeps sending events with a clock two hours in the future.
The upload with id %%UUID%% failed at 97 percent; the client retries from the last chunk.
Azure subscription %%UUID%% holds the staging resources; production is in a separate one.
The workspace id in the analytics config is %%UUID%%.
Webhook delivery %%UUID%% got a 500 from the customer's endpoint; retry scheduled.
Invoice %%UUID%% shows a negative total; the discount was applied twice.
The test fixture user has id %%UUID%% and the name Test User.
The Docker image digest is sha256:%%SHA256%%.
Production runs ghcr.io/example-org/api@sha256:%%SHA256%%.
Pinned the base image to python:3.12-slim@sha256:%%SHA256%% so rebuilds are reproducible.
The release tarball has sha256:%%SHA256%%, matching the value in SHA256SUMS.
The layer sha256:%%SHA256%% is 410 MB; it is the node_modules copy.
kubectl describe pod shows image ID docker.io/library/nginx@sha256:%%SHA256%%.
The wheel's hash in requirements.lock is sha256:%%SHA256%%.
Verified the download: sha512:%%SHA512%%.
The npm lockfile lists integrity sha512 for the package; the hex form is sha512:%%SHA512%%.
docker pull redis@sha256:%%SHA256%% to get the exact image from last week.
The manifest list digest is sha256:%%SHA256%%; the amd64 image has its own digest.
The attestation's subject digest is sha256:%%SHA256%%.
The Go checksum in go.sum differs; the expected file hash is sha256:%%SHA256%%.
The cached artefact key ends in sha256:%%SHA256%%, taken from the lockfile.
The sha256 of the dataset file is %%SHA256%%; check it before training.
The container that crashed was quay.io/example/worker@sha256:%%SHA256%%.
The OCI index for the multi-arch build is sha256:%%SHA256%%.
The config blob sha256:%%SHA256%% is what the registry returned for the manifest.
Helm chart api-2.14.0.tgz has digest sha256:%%SHA256%% in the OCI registry.
The deploy role is arn:aws:iam::%%ACCT%%:role/github-actions-deploy.
The bucket ARN is arn:aws:s3:::backups-prod-eu-west-1 and the KMS key is arn:aws:kms:eu-west-1:%%ACCT%%:key/%%UUID%%.
The Lambda function arn:aws:lambda:us-east-1:%%ACCT%%:function:thumbnailer times out at 30s.
SNS topic arn:aws:sns:eu-central-1:%%ACCT%%:alerts-prod fans out to PagerDuty and Slack.
The SQS dead-letter queue is arn:aws:sqs:eu-west-1:%%ACCT%%:orders-dlq.
The ECS service runs under arn:aws:iam::%%ACCT%%:role/ecsTaskExecutionRole.
The secret's ARN is arn:aws:secretsmanager:eu-west-1:%%ACCT%%:secret:prod/api/db-AbCdEf; only its ARN is in the config.
The DynamoDB table arn:aws:dynamodb:us-west-2:%%ACCT%%:table/sessions has TTL on expires_at.
The ACM certificate arn:aws:acm:us-east-1:%%ACCT%%:certificate/%%UUID%% is the one CloudFront uses.
The OIDC provider is arn:aws:iam::%%ACCT%%:oidc-provider/token.actions.githubusercontent.com.
The policy arn:aws:iam::aws:policy/ReadOnlyAccess is attached to the auditors group.
The Step Functions state machine arn:aws:states:eu-west-1:%%ACCT%%:stateMachine:nightly-export failed at the Compress step.
The ECR repository is %%ACCT%%.dkr.ecr.eu-west-1.amazonaws.com/api, images tagged by commit.
The EventBridge rule arn:aws:events:eu-west-1:%%ACCT%%:rule/nightly-cleanup fires at 02:00 UTC.
CloudWatch log group arn:aws:logs:eu-west-1:%%ACCT%%:log-group:/ecs/api:* keeps logs for 30 days.
Assumed arn:aws:iam::%%ACCT%%:role/ReadOnly with aws sts assume-role to check the bucket policy.
The SSM parameter arn:aws:ssm:eu-west-1:%%ACCT%%:parameter/app/prod/feature-flags holds the flags JSON.
The test fixture's payload field is %%B64:hello from the fixture%%, which decodes to "hello from the fixture".
The base64 string %%B64:The quick brown fox jumps over the lazy dog%% in the test is just the pangram.
The ConfigMap stores the banner text base64-encoded: %%B64:Scheduled maintenance on Sunday at 02:00 UTC%%.
The email body in the test is %%B64:Your order has shipped and will arrive on Tuesday.%% (base64 of a plain sentence).
The webhook fixture's data field %%B64:{"event":"order.created","id":42}%% is base64 of a small JSON event.
Decoded %%B64:This file is intentionally left blank.%% from the attachment; it is a placeholder document.
The cursor value %%B64:offset=200&limit=50%% is just base64 of the query string.
The Kubernetes manifest has data.greeting: %%B64:Welcome to the staging cluster%%, a harmless message.
The test vector in test_codec.py is %%B64:optmem test vector number one%%.
The cache entry %%B64:user:42:preferences%% is the base64 of the Redis key name.
The header X-Debug-Info: %%B64:build=ci region=eu-west-1%% comes from the CDN.
The sample attachment in the API docs is %%B64:Hello, World!%% which decodes to Hello, World!.
The opaque page token %%B64:page=3&sort=created_at%% is base64 of the paging state.
The data URI in the test is data:text/plain;base64,%%B64:Lorem ipsum dolor sit amet%%.
The git LFS pointer test uses %%B64:version https://git-lfs.github.com/spec/v1%% as content.
Our SSH public key for the deploy user: ssh-ed25519 %%SSHPUB%% deploy@ci
Added the public key ssh-ed25519 %%SSHPUB%% mara-laptop to authorized_keys on the bastion.
The known_hosts entry for the git server is github.com ssh-ed25519 %%SSHPUB%%.
Release signing public key: ssh-ed25519 %%SSHPUB%% releases (the private half is offline).
The backup is encrypted to the age recipient %%AGE%%; the identity file is on the restore host.
Added a second age recipient %%AGE%% so two people can decrypt the backups.
sops encrypts the values file for the recipients %%AGE%% and %%AGE%%.
The script tag loads the library with integrity="%%SRI%%" crossorigin="anonymous".
The SRI hash for the CDN copy of the stylesheet is %%SRI%%.
Updated the integrity attribute to %%SRI%% after bumping the library version.
TODO: the importer still reads the whole file into memory; switch to streaming before the 2.15 release.
Open question: should recall search archived projects too? Asked Mara, waiting for an answer.
Measured recall on 1,000,000 records: 0.41 s with the C counter, 2.9 s without it.
p99 latency of the search endpoint went from 840 ms to 120 ms after adding the GIN index.
The benchmark machine has 2 cores and 4 GB RAM; numbers from laptops are not comparable.
Throughput of the importer: about 18,000 rows per second on the staging database.
The docker image shrank from 1.2 GB to 180 MB with the multi-stage build and slim base.
Cold start of the Lambda is 1.8 s with the full SDK, 600 ms after trimming the imports.
Note to self: the staging database is reset every Sunday night, do not keep test data there.
Reminder: the certificate for api.example.com expires on the 14th; renewal is automatic via cert-manager.
Meeting notes: we agreed to freeze the API for two weeks while the mobile team catches up.
The on-call handbook says to page the database owner only after the runbook steps fail.
Workaround until upstream fixes it: set PYTHONUTF8=1 on Windows runners.
Known issue: the progress bar flickers in the VS Code terminal; harmless.
Tried three approaches for the diff view; the line-based one was good enough and the simplest.
The fastest way to reproduce the bug is to run the test with -n 2 and --count 50.
Lesson learned: never run migrations and a deploy in the same pipeline step.
The incident timeline is in docs/incidents/2024-11-checkout.md, blameless format.
Performance note: json.loads is faster than the custom parser for files under 10 MB.
The cache hit rate is 94 percent after warming; cold it is 0 and the first page takes 3 s.
Next step: write the tests for the harness setup, then refactor the config loader.
Still unclear why the Windows job is slower; maybe antivirus scanning the temp folder.
I should ask before deleting the old branches; some are referenced by open issues.
The user confirmed the fix works on their machine with Python 3.12.7.
Rolled back the deploy after 12 minutes because error rates doubled; the release stays on hold.
The vendor's SDK retries internally three times, so our retry wrapper made it nine; removed ours.
Remember to update the changelog under Unreleased with one line per change.
The wiki says to use port 8080 but the compose file maps 8000; the compose file is right.
Review feedback: rename get_data to load_records and document that the result is oldest first.
The ticket asks for CSV export but the user really needs a way to share a filtered view.
The accessibility audit flagged low contrast on the disabled buttons and missing labels on icon buttons.
The screen reader announces the toast twice because it has both role=alert and aria-live.
Dark mode colours are defined as CSS variables in src/styles/theme.css.
The GraphQL query for the dashboard fetches 14 fields we never display; trimmed it.
The mobile app crashes on Android 10 only, in the camera permission flow.
iOS builds need Xcode 16.1; the CI image was updated on Monday.
Translations are managed in Crowdin; the sync job opens a PR every night.
The i18n keys follow the pattern page.section.label, for example checkout.summary.total.
The error budget for the API is 0.1 percent per month; we used 60 percent of it in November.
The SLO dashboard counts 5xx responses and requests slower than 2 seconds as bad events.
The feature is behind the flag search_v2, default off, on for internal users.
The A/B test ended: variant B improved signups by 3.2 percent with p below 0.01.
The data warehouse refresh takes 40 minutes and runs after the nightly export.
dbt models live in analytics/models/; the staging layer mirrors source tables one to one.
The Airflow DAG nightly_export has a retry delay of 10 minutes and 3 retries.
The Spark job reads partitioned Parquet from s3://data-lake-prod/events/date=YYYY-MM-DD/.
The ML model version in production is churn-2024-10-v3; the previous one is kept for rollback.
Inference latency of the model is 35 ms on CPU, which is fine for the batch use case.
The training run used seed 1234 and the dataset snapshot from October 31.
The notebook in research/eda.ipynb is exploratory; nothing in production imports it.
Printing works again after pinning the weasyprint version to 62.3.
Email sending goes through the transactional provider's API; SMTP is disabled.
The PDF invoice template uses the Inter font, embedded, so it renders the same everywhere.
The cron expression 0 3 * * 1-5 means 03:00 UTC on weekdays.
The regex ^[a-z0-9-]{3,63}$ validates bucket names; dots are not allowed in ours.
The Makefile target release runs the tests, builds the wheel and uploads to TestPyPI first.
The CLI exit codes: 0 success, 1 error, 2 usage error, 3 refused by the guard.
memo recall prints records oldest first, each with its project and age.
The store file grows by exactly one record width per note, so its size tells the count.
Nothing written is ever lost: a refused note is kept in the rejects file with the reason.
The fixed record width is 256 bytes, including the newline.
Locking uses a lock file next to the store; readers never take it.
The migration from the v1 format rewrites into a new file and renames it atomically.
The tests build their hostile repositories in tmp_path; nothing binary is committed.
The harness emulator in tests/harness_emulator.py plays the part of the agent's hooks.
The MCP server exposes recall and remember as tools; both take a project argument.
The CPU bound for recall is enforced by counting records, not by a wall-clock timer.
The setup command writes hook entries for Claude Code, Codex and Gemini CLI.
Hooks receive JSON on stdin with the session id, the working directory and the event name.
The project binding follows the git top-level folder, so subfolders share one project.
Projects without git are bound by their folder path.
The protocol lines are tested byte for byte in tests/test_protocol.py.
Running memo without arguments prints the short help and exits with 2.
The replicas test checks that two copies of the store converge after a sync.
The config file accepts comments and ignores unknown keys with a warning.
The CHANGELOG follows Keep a Changelog with an Unreleased section at the top.
Docstrings say whether lengths are in bytes or characters and whether ranges are half-open.
The guard refuses a note only when it is sure; otherwise the note is stored.
The store's index is rebuilt if its checksum does not match; this costs one scan.
Long notes are split across records; the continuation marker is at the start of each record.
Search is case-insensitive and NFC-normalises both the note and the query.
The fold table for case-insensitive search is generated from Unicode 15.1 data.
The seed for the property tests is printed on failure so the case can be replayed.
Hypothesis found that an empty project name crashed the binder; now it is refused with one line.
The spec's reference tool and ours agree on all 5,452 cover vectors.
Idempotent setup: running memo setup twice leaves the settings file unchanged.
The harness settings file is JSON with comments stripped before parsing.
Gemini CLI reads hooks from settings.json in the project's .gemini folder.
Codex reads hooks.json from the user's config folder; the schema is in tests/data/schemas.
The hook command is absolute so it works when the agent's PATH differs from the shell's.
Recall answers within the budget even on a million records by stopping after the chunk limit.
The handover note at the end of a session lists open tasks and where things stand.
A compact event in the harness triggers a reminder to recall before continuing.
The order printed by memo always starts with Run: and runs exactly as printed.
Steps only a person may take are printed as A person can run: followed by the command.
On a read-only home folder the store falls back to a clear error naming the folder to fix.
Two processes writing at once: the second waits on the lock for up to 10 seconds, then reports it.
The scanner gives up on a chunk after 64 needles and lets the regex engine handle the rest.
RE2 is optional; without it Python's re gives the same answers, only slower.
The compiled counter is used only when the pattern expands to literals under 1,024 characters.
Der Fehler wurde mit Commit %%H40%% eingeführt und mit %%HS%% behoben.
Das Image läuft in Produktion als ghcr.io/example-org/api@sha256:%%SHA256%%.
Die Anfrage-ID %%UUID%% taucht in beiden Logs auf, im Gateway und im Worker.
Die Rolle für das Deployment ist arn:aws:iam::%%ACCT%%:role/deploy-ci, nur lesend auf den Bucket.
Le correctif est dans le commit %%HS%%, rétroporté sur la branche release/2.14.
L'empreinte de l'archive est sha256:%%SHA256%%, identique à celle du fichier SHA256SUMS.
La requête %%UUID%% a expiré après 30 secondes dans le service de recherche.
La clé publique de déploiement est ssh-ed25519 %%SSHPUB%% deploy-ci.
コミット %%HS%% でトークナイザーの空入力のクラッシュを修正した。
本番のイメージは registry.example.com/platform/gateway@sha256:%%SHA256%% に固定した。
失敗したジョブの ID は %%UUID%%。6 時間 running のままだった。
提交 %%H40%% 引入了这个回归，已在 %%HS%% 中回滚。
镜像摘要是 sha256:%%SHA256%%，生产环境固定使用这个版本。
请求 ID %%UUID%% 对应的追踪显示大部分时间花在数据库查询上。
El commit %%HS%% arregla el desbordamiento en la extensión en C.
La imagen fijada es python:3.12-slim@sha256:%%SHA256%% para que las compilaciones sean reproducibles.
El rol de la tarea es arn:aws:iam::%%ACCT%%:role/ecs-worker-task.
Range of the regression: %%HS%%..%%HS%%, eleven commits, all from the tokenizer PR.
- fixed flaky test (%%HS%%)
- bumped click to 8.1.7 (%%HS%%)
* reverted the cache change, see %%HS%%
Status: done. Commit: %%HS%%. Tests: 48 passed. Next: docs.
deploy api@2.14.0 -> prod ok (%%HS%%), error rate back to 0.02 percent
PR 412 merged as %%HS%%; the branch was deleted afterwards.
git diff %%HS%%^ %%HS%% -- optmem/store.py shows the one-line fix.
The wheel in the cache matches sha256=%%SHA256%% from the pip hash check.
The OCI image for the docs site is ghcr.io/example-org/docs:2024.10.1 with index digest sha256:%%SHA256%%.
Restic snapshot %%H8%% is the last good backup before the corruption.
The Terraform plan file's hash is %%SHA256%%; apply only that plan.
Checked the ISO against sha512:%%SHA512%% from the mirror's SHA512SUMS.
The GPG key fingerprint of the release manager is shown on the download page; we verify with it, nothing to store here.
The CloudFront distribution E2QWRUHAPOMQZL serves the docs; invalidations take about a minute.
The VPC id is vpc-0a1b2c3d4e5f67890 and the private subnets are in three availability zones.
The EC2 instance i-0abcd1234ef567890 runs the legacy cron jobs until they move to EventBridge.
The security group sg-0123456789abcdef0 allows 5432 only from the app subnets.
The AMI for the build hosts is ami-0c55b159cbfafe1f0, Ubuntu 24.04 based.
Key: value notes from the call: owner=Mara, deadline=Friday, scope=search only.
The key question for tomorrow: do we migrate in place or rebuild the index from scratch?
Token usage last week: 3.1M input tokens, 410k output tokens across all agents.
The tokens per second of the local model is about 45 on the GPU box.
Secretary of the architecture guild this quarter is Jonas; minutes go to docs/guild/.
The passwordless login via magic links is behind the flag magic_link, on in staging.
Keychain access on macOS asks for permission the first time the CLI reads the stored credential.
The keyring library stores the credential in the OS keychain; the note only says that it does.
No secrets in this repository: checked with gitleaks detect --no-git over the working tree, 0 findings.
"""

# Sentence shapes written by hand, each filled FILLS times with generated values.
TEMPLATES = r"""
commit %%H40%% fixed the crash in %%PATH%%.
The fix for %%SVC%% is in %%HS%%, released in %%VER%%.
%%NAME%% reverted %%HS%% on %%BRANCH%% because the tests in %%PATH%% failed.
Bisected the %%SVC%% slowdown to %%H40%%.
%%BRANCH%% is at %%HS%%; %%NAME%% will rebase after the review.
Backported %%HS%% to %%BRANCH%% as part of %%VER%%.
The %%SVC%% deploy of %%VER%% used commit %%H40%%.
Look at %%HS%% for how %%PATH%% handled this before the refactor.
%%NAME%% asked to keep commit %%HS%% separate from the formatting changes.
Image %%IMG%%@sha256:%%SHA256%% is what %%SVC%% runs in staging.
Pinned %%IMG%% to digest sha256:%%SHA256%% for the %%VER%% release.
%%SVC%% was rolled back to %%IMG%%@sha256:%%SHA256%%.
The build of %%VER%% produced sha256:%%SHA256%% for the wheel.
Checksum of the %%SVC%% release archive: sha512:%%SHA512%%.
The %%SVC%% request %%UUID%% failed with a 502 from the upstream.
%%NAME%% traced job %%UUID%% through %%SVC%%; it stalled in %%PATH%%.
Record %%UUID%% in %%SVC%% was created twice by the retry.
The %%SVC%% role is arn:aws:iam::%%ACCT%%:role/%%SVC%%-task.
The %%SVC%% queue is arn:aws:sqs:eu-west-1:%%ACCT%%:%%SVC%%-events.
%%SVC%% logs go to arn:aws:logs:us-east-1:%%ACCT%%:log-group:/app/%%SVC%%.
Upgraded %%SVC%% to %%VER%%; nothing in %%PATH%% needed to change.
%%SVC%% %%VER%% is the first release with the new retry policy.
%%NAME%% confirmed that %%VER%% fixes the issue in %%SVC%%.
The changelog of %%VER%% mentions the bug we hit in %%PATH%%.
Edited %%PATH%% to read the timeout from the config instead of a constant.
%%PATH%% is generated; edit the template and run make generate instead.
The tests for %%PATH%% are slow because they start %%SVC%% in Docker.
%%NAME%% owns %%PATH%%; ask before changing its public functions.
%%NAME%% prefers that %%SVC%% changes go through %%BRANCH%% first.
The key insight for %%SVC%%: most requests hit the same %%N%% keys.
The primary key of the %%SVC%% table is a bigint; %%N%% million rows so far.
The %%SVC%% API key rotation is monthly; the key itself lives in the vault, not here.
The token budget for %%SVC%% prompts is %%N%%,000 tokens.
%%SVC%% config: api_key = %%PH%% in the example file; the real one comes from the environment.
The %%SVC%% docs show password: %%PH%% in the sample config.
Set the %%SVC%% token to %%PH%% in .env.example so newcomers see the variable name.
In the %%SVC%% runbook the header reads Authorization: Bearer %%PH%%.
The secret for %%SVC%% is shown as %%PH%% in the dashboard after creation.
%%NAME%% wrote API key is %%PH%% in the ticket, which is correct, no real value.
The %%SVC%% fixture payload is %%B64T%%, just base64 of a readable sentence.
CI on %%BRANCH%% passed %%N%%0 tests in %%N%% minutes at %%HS%%.
CI on %%BRANCH%% failed at %%HS%%: a timeout in %%PATH%%.
%%NAME%% merged %%BRANCH%% at %%HS%% after the review.
The %%SVC%% session timeout is %%N%%0 minutes and the cookie lasts %%N%% days.
Webhook retries for %%SVC%% back off from %%N%% seconds up to an hour.
The %%SVC%% Helm values set replicas to %%N%% and the image to %%IMG%%:%%VER%%.
Pulled %%IMG%%:%%VER%% and checked its digest, sha256:%%SHA256%%.
The %%SVC%% trace %%UUID%% spent most of its time in %%PATH%%.
Tenant %%UUID%% reported that %%SVC%% shows stale data after %%VER%%.
The %%SVC%% KMS key is arn:aws:kms:eu-west-1:%%ACCT%%:key/%%UUID%%.
%%NAME%% signed the %%VER%% tag; the tag object is %%H40%%.
The %%SVC%% lockfile entry has hash sha256:%%SHA256%%.
%%NAME%%'s public key for %%SVC%% access: ssh-ed25519 %%SSHPUB%% %%NAMEL%%-laptop
The %%SVC%% backups are encrypted to %%AGE%%.
The %%SVC%% page loads its script with integrity %%SRI%%.
"""

FILLS = 11

NAMES = ["Mara", "Jonas", "Priya", "Tomás", "Kenji", "Sofia", "Ahmed", "Wei", "Ana", "Lena",
         "Olu", "Marek", "Chloé", "Ravi", "Ingrid", "Diego", "Yuki", "Fatima", "Noah", "Elif"]
SERVICES = ["billing", "search", "auth", "checkout", "notifier", "exporter", "gateway",
            "scheduler", "thumbnailer", "inventory", "reports", "ingest", "webhooks", "sync"]
PATHS = ["optmem/store.py", "optmem/cli.py", "src/app/main.py", "src/api/routes/orders.py",
         "pkg/cache/lru.go", "crates/core/src/parser.rs", "web/src/hooks/useSession.ts",
         "internal/queue/consumer.go", "db/migrations/0042_add_index.sql", "charts/api/values.yaml",
         "scripts/release.sh", "tests/test_search.py", "lib/billing/invoice.rb",
         "services/worker/tasks.py", "frontend/src/pages/Checkout.tsx", "docs/configuration.md",
         ".github/workflows/ci.yml", "infra/terraform/modules/vpc/main.tf", "Makefile",
         "config/settings/production.py"]
VERSIONS = ["1.4.2", "2.14.0", "2.14.1-rc.1", "0.9.12", "3.0.0b2", "v1.30.5", "5.1.3",
            "8.1.7", "0.3.0.dev1", "2024.10.1", "v0.0.0-20241012", "4.19.1", "1.82.0", "16.4"]
BRANCHES = ["main", "develop", "release/2.14", "hotfix/checkout-500", "feature/search-v2",
            "renovate/lockfile", "corp/mara-cleanup", "release/1.4", "staging"]
IMAGES = ["ghcr.io/example-org/api", "docker.io/library/postgres", "python", "nginx",
          "redis", "quay.io/example/worker", "registry.example.com/platform/gateway",
          "public.ecr.aws/docker/library/node"]
PLACEHOLDERS = ["<token>", "<your-api-key>", "xxxx", "xxxxxxxx", "your-api-key-here",
                "${TOKEN}", "${API_KEY}", "$API_KEY", "***", "REDACTED", "[REDACTED]",
                "changeme", "<your password>", "<redacted>", "********", "${{ secrets.API_TOKEN }}",
                "{{ api_token }}", "<PASSWORD>", "...", "%API_KEY%"]
PHRASES = ["hello world", "order shipped", "the quick brown fox", "welcome back, test user",
           "payment received, thank you", "this is a test fixture", "nothing to see here",
           "meeting moved to Thursday", "status: ok", "build passed on main",
           "lorem ipsum dolor sit amet", "sample attachment for the upload test"]

BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32_polymod(values: list[int]) -> int:
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((top >> i) & 1) else 0
    return chk


def bech32(hrp: str, data: bytes) -> str:
    """Encode ``data`` as bech32 under ``hrp`` (BIP 173), as age writes recipients."""
    acc, bits, five = 0, 0, []
    for byte in data:
        acc = (acc << 8) | byte
        bits += 8
        while bits >= 5:
            bits -= 5
            five.append((acc >> bits) & 31)
    if bits:
        five.append((acc << (5 - bits)) & 31)
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    poly = _bech32_polymod(expanded + five + [0] * 6) ^ 1
    check = [(poly >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32[d] for d in five + check)


class Values:
    """Random-looking values drawn from one seeded generator, so every run gives the same file."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.person = NAMES[0]

    def raw(self, n: int) -> bytes:
        return bytes(self.rng.getrandbits(8) for _ in range(n))

    def h40(self) -> str:
        return hashlib.sha1(b"commit " + self.raw(32)).hexdigest()

    def slot(self, name: str) -> str:
        rng = self.rng
        if name == "H40":
            return self.h40()
        if name == "HS":
            return self.h40()[: rng.randint(7, 12)]
        if name in ("H8", "H12"):
            return self.h40()[: int(name[1:])]
        if name == "UUID":
            return str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if name == "SHA256":
            return hashlib.sha256(self.raw(64)).hexdigest()
        if name == "SHA512":
            return hashlib.sha512(self.raw(64)).hexdigest()
        if name == "ACCT":
            return str(rng.randint(10**11, 10**12 - 1))
        if name == "SSHPUB":
            kind = b"ssh-ed25519"
            blob = len(kind).to_bytes(4, "big") + kind + (32).to_bytes(4, "big") + self.raw(32)
            return base64.b64encode(blob).decode()
        if name == "AGE":
            return bech32("age", self.raw(32))
        if name == "SRI":
            return "sha384-" + base64.b64encode(hashlib.sha384(self.raw(64)).digest()).decode()
        if name.startswith("B64:"):
            return base64.b64encode(name[4:].encode()).decode()
        if name == "B64T":
            return base64.b64encode(rng.choice(PHRASES).encode()).decode()
        if name == "NAME":
            self.person = rng.choice(NAMES)
            return self.person
        if name == "NAMEL":  # the person just named, as a host-name part
            folded = unicodedata.normalize("NFKD", self.person).encode("ascii", "ignore")
            return folded.decode().lower()
        picks = {"SVC": SERVICES, "PATH": PATHS, "VER": VERSIONS, "BRANCH": BRANCHES,
                 "IMG": IMAGES, "PH": PLACEHOLDERS}
        if name in picks:
            return rng.choice(picks[name])
        if name == "N":
            return str(rng.randint(2, 9))
        raise ValueError(f"unknown slot %%{name}%%")


SLOT = re.compile(r"%%([A-Z0-9]+(?::[^%]*)?)%%")


def fill(line: str, values: Values) -> str:
    """Replace every ``%%SLOT%%`` in ``line`` with a fresh value; ValueError on an unknown slot.

    ``%%SVC%%`` names one service for the whole line, so a sentence talks about one thing.
    """
    service = values.slot("SVC") if "%%SVC%%" in line else ""
    line = line.replace("%%SVC%%", service)
    return SLOT.sub(lambda m: values.slot(m.group(1)), line)


def lines_of(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip()]


def build(seed: int = SEED) -> tuple[list[str], int]:
    """Return (sentences, how many are hand-written), hand-written first, each once.

    Raises ValueError if a sentence is over MAX_BYTES bytes of UTF-8, holds a tab,
    starts with a date, keeps an unfilled slot or repeats an earlier one.
    """
    values = Values(seed)
    out: list[str] = []
    seen: set[str] = set()

    def add(line: str) -> bool:
        if line in seen:
            return False
        if len(line.encode("utf-8")) > MAX_BYTES:
            raise ValueError(f"over {MAX_BYTES} bytes: {line}")
        if "\t" in line or "\r" in line or "%%" in line:
            raise ValueError(f"tab, CR or unfilled slot: {line}")
        if re.match(r"\d{4}-\d{2}-\d{2}", line):
            raise ValueError(f"starts with a date: {line}")
        seen.add(line)
        out.append(line)
        return True

    for line in lines_of(HAND):
        if not add(fill(line, values)):
            raise ValueError(f"hand-written line repeats: {line}")
    hand = len(out)
    for template in lines_of(TEMPLATES):
        made = 0
        for _ in range(FILLS * 4):
            if made == FILLS:
                break
            made += add(fill(template, values))
    return out, hand


def main() -> int:
    lines, hand = build()
    target = Path(__file__).with_name("guard-allowed.txt")
    target.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    print(f"{target}: {len(lines)} lines, {hand} hand-written, {len(lines) - hand} template fills")
    return 0


if __name__ == "__main__":
    sys.exit(main())
