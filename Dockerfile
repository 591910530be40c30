# The Santa Cruz Discord bot as a container image: `docker compose up -d` (compose.yaml) or
#   docker build -t santacruz-bot .
# BASE is any image with Python >= 3.11 whose `python3` has venv (python:3.12-slim, or a Debian image with
# python3 and python3-venv). Both stages must use the same BASE: the virtual environment points at its Python.
ARG BASE=python:3.12-slim

# -- build: the project and its dependencies (the postgres extra too) into a virtual environment ----------------
FROM ${BASE} AS build
# pip's usual settings, for a build behind a mirror or a proxy with its own certificate authority (build
# arguments reach only this stage, never the image): e.g. --build-arg PIP_INDEX_URL=… --build-arg PIP_CERT=…
ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
ARG PIP_CERT
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python3 -m venv /opt/santacruz
WORKDIR /src
# The dependencies first, in a layer of their own that a change of the bot's code leaves alone (nothing is downloaded
# again): every package, the transitive ones and the build backend too, at the version requirements.lock pins with
# its hashes (pip-compile makes it from pyproject.toml, see the README), and pip refuses a file whose hash differs.
COPY requirements.lock ./
RUN /opt/santacruz/bin/python -m pip install --require-hashes --no-deps -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine engine
COPY render render
COPY assets assets
COPY bot bot
COPY i18n i18n
COPY play play
# The bot itself, built with the locked setuptools and nothing fetched: a regular (not editable) install, whose
# wheel carries the fonts (package data of render.assets) and the locales. The build tools leave afterwards: the
# image is upgraded by building it again.
RUN /opt/santacruz/bin/python -m pip install --no-deps --no-build-isolation --no-index . \
 && /opt/santacruz/bin/python -m pip uninstall -y -q pip setuptools wheel

# -- runtime: the environment, tini and a user without privileges; no compiler, no pip, no sources -------------
FROM ${BASE}
# The image's labels (OCI): VERSION is pyproject.toml's (a test keeps them equal); REVISION the commit, if given
# (scripts/container-check gives it: --build-arg REVISION=$(git rev-parse HEAD)).
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="santacruz-bot" \
      org.opencontainers.image.description="Play the board game Santa Cruz (Hans im Glück 2012) with friends on Discord" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT"
# tini is PID 1: it passes SIGTERM on to santacruz-bot and reaps orphans. The bot must not be PID 1 itself: its
# worker processes (pictures, computer players) end themselves when their parent pid is 1, taking that for their
# parent having died, so every picture failed with the bot as PID 1 (seen by scripts/container-check).
RUN apt-get update && apt-get install --yes --no-install-recommends tini \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin santacruz \
 && mkdir /data && chown santacruz:santacruz /data
COPY --from=build /opt/santacruz /opt/santacruz
ENV PATH=/opt/santacruz/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DATABASE_PATH=/data/santacruz.db \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080 \
    WEB_HOST=0.0.0.0 \
    WEB_PORT=8081
# The SQLite database (and backups made with `santacruz-bot backup /data/…`) live here.
VOLUME /data
WORKDIR /data
USER santacruz
# 8080: /healthz, /readyz and /metrics (private: publish it to this machine only); 8081: the games' web pages (for
# the public, behind a reverse proxy with HTTPS: see the README; set PUBLIC_URL to its address).
EXPOSE 8080 8081
# /healthz answers while the event loop runs; Python's standard library asks (the slim image has no curl).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('HTTP_PORT', '8080'), timeout=4)"]
# santacruz-bot stops cleanly on SIGTERM within SHUTDOWN_GRACE (10 s by default): give it more than that
# (docker stop -t 30, compose's stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "santacruz-bot"]
CMD []
