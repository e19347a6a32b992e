#!/bin/sh
# Container entrypoint of a device worker: a headless desktop on :1, then
# the worker for $DEVICE against $PCFLOW_TEMPORAL.
set -e
pcflow desktop up --display :1 >/dev/null
exec pcflow worker --device "${DEVICE:?set DEVICE}" --display :1 --temporal "${PCFLOW_TEMPORAL:?set PCFLOW_TEMPORAL}" "$@"
