#!/bin/sh
# The condorlite image's entrypoint (see the Dockerfile). With no command: the pool in the
# foreground, the container's main process. With a command: the pool in the background
# (condor_master returns once it is ready), then the command in its place.
set -eu
mkdir -p "${_CONDOR_LOCAL_DIR:?}"
if [ "$#" -eq 0 ]; then
    exec condor_master -f
fi
condor_master
exec "$@"
