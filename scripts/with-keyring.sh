#!/usr/bin/env bash
# Runs a command against a real but private Secret Service: gnome-keyring on a D-Bus session bus of
# its own, with its keyring files in a temp dir that is removed afterwards. Keychain tests then talk
# to a real keychain daemon and never touch the user's own keyring, on a desktop or in CI.
#
#   scripts/with-keyring.sh COMMAND [ARG...]
#
# Needs dbus-run-session (Debian: dbus-daemon), gdbus (libglib2.0-bin) and gnome-keyring-daemon
# (gnome-keyring). Where they are missing it runs the command as it is only if a Secret Service is
# already on the bus (say KeePassXC's), or on macOS and Windows, whose keychains need no daemon.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

# Nested call (e.g. `with-keyring.sh npm test`, whose runner calls us again): already set up.
if [ -n "${ATELIER_PRIVATE_KEYRING:-}" ]; then exec "$@"; fi

secret_service_on_bus() {
  [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v gdbus >/dev/null &&
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
      --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null |
    grep -q true
}

if ! command -v dbus-run-session >/dev/null || ! command -v gdbus >/dev/null ||
  ! command -v gnome-keyring-daemon >/dev/null; then
  case "$(uname -s)" in
  Linux | *BSD)
    if secret_service_on_bus; then
      echo "with-keyring: no gnome-keyring/dbus-run-session; using the Secret Service already on the bus" >&2
      exec "$@"
    fi
    echo "with-keyring: needs dbus-run-session, gdbus and gnome-keyring-daemon" >&2
    echo "  (Debian/Ubuntu: apt-get install dbus-daemon libglib2.0-bin gnome-keyring)" >&2
    exit 127
    ;;
  *) exec "$@" ;; # macOS Keychain, Windows Credential Manager: nothing to start.
  esac
fi

root="$(mktemp -d "${TMPDIR:-/tmp}/atelier-keyring.XXXXXX")"
trap 'rm -rf "$root"' EXIT
mkdir -m 700 "$root/data" "$root/runtime" "$root/cache" "$root/config"

# Inside the new bus: start the daemon with its files under $root, wait for it to own the Secret
# Service name, run the command with the caller's own environment plus the bus address, then stop
# the daemon and reap it.
inner='
set -euo pipefail
root=$1
shift
keyring_env=(HOME="$root" XDG_DATA_HOME="$root/data" XDG_RUNTIME_DIR="$root/runtime"
  XDG_CACHE_HOME="$root/cache" XDG_CONFIG_HOME="$root/config")
# Anything the bus starts on demand (a second keyring daemon, a prompter) lands in $root as well.
dbus-update-activation-environment "${keyring_env[@]}"
# The password only unlocks this throwaway keyring (read from stdin, so never in ps output).
printf "atelier-throwaway" |
  env "${keyring_env[@]}" gnome-keyring-daemon --foreground --unlock --components=secrets \
    >"$root/daemon.log" 2>&1 &
daemon=$!
trap "kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true" EXIT
# The daemon is ready when it owns the name; gdbus wait watches for that (no polling, no sleep).
if ! gdbus wait --session --timeout 30 org.freedesktop.secrets; then
  echo "with-keyring: gnome-keyring-daemon did not come up on the bus:" >&2
  cat "$root/daemon.log" >&2
  exit 1
fi
status=0
ATELIER_PRIVATE_KEYRING=1 "$@" || status=$?
exit "$status"
'
status=0
dbus-run-session -- bash -c "$inner" with-keyring "$root" "$@" || status=$?
exit "$status"
