# condorlite's tools and a personal pool in a container, for projects that test against
# htcondor/mini or a cm/submit/execute trio today (see docs/testing-with-condorlite.md).
#
#   docker build -t condorlite .
#   docker run -d --name pool condorlite                 # the pool, in the foreground
#   docker exec pool condor_run 'echo hello'             # the tools, as the user condor
#   docker run --rm -v "$PWD:/work" -w /work condorlite sh -c 'condor_submit job.sub && ...'
#
# With no command the container's main process is `condor_master -f`; with a command, the pool
# starts in the background first and the command runs with it (a CI job's shell). The pool has
# no network port (condorlite has no CEDAR): other containers cannot submit to it; run your
# tests inside this container, or install condorlite into yours. The health check is
# `condor_status -af Name`, which answers once the master runs and its slots are advertised.

ARG DEBIAN=bookworm

FROM rust:1-slim-${DEBIAN} AS build
WORKDIR /src
COPY . .
# Every tool: one binary per src/bin/*.rs, copied alone into /out.
RUN cargo build --release --locked --bins \
 && mkdir /out \
 && for tool in src/bin/*.rs; do cp "target/release/$(basename "$tool" .rs)" /out/; done

FROM debian:${DEBIAN}-slim
# tini reaps what jobs leave behind (the master reaps only its own jobs) and passes
# docker stop's SIGTERM on to the master, which shuts the pool down gracefully.
RUN apt-get update \
 && apt-get install --yes --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --shell /bin/bash condor
COPY --from=build /out/ /usr/local/bin/
COPY contrib/docker/entrypoint.sh /usr/local/bin/condorlite-entrypoint
# Jobs run as the master's user: the pool and the tools run as condor, never root.
USER condor
WORKDIR /home/condor
ENV _CONDOR_LOCAL_DIR=/home/condor/pool
HEALTHCHECK --interval=5s --timeout=10s --start-period=10s --retries=3 \
    CMD ["condor_status", "-af", "Name"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/condorlite-entrypoint"]
