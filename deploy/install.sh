#!/bin/sh
# Installs formsvc on a Linux server with systemd (docs/deploy.md):
#
#   curl -fsSL https://releases.example.com/formsvc/install.sh | sudo sh -s -- --domain forms.example.com
#
# Downloads the release's manifest, checks its Ed25519 signature against the key written in below (with
# openssl 3, else ssh-keygen; with neither it stops), downloads the xz-compressed binary for this machine and
# checks it and the binary it unpacks to against the manifest's SHA-256, then runs `formsvc install`, which
# installs /usr/local/bin/formsvc, a system user formsvc, /var/lib/formsvc (0700: the database and backups/),
# /etc/formsvc/formsvc.env (0600, kept on a re-run) and formsvc.service, enables and starts it and prints the
# dashboard's setup link. A second run upgrades the binary (the one it replaces kept as formsvc.previous) and
# keeps everything else.
#
#   --domain D     HTTPS by itself for D (ports 80 and 443, a certificate from Let's Encrypt)
#   --version V    that version rather than the latest
#   --from URL     the release folder to install from (default: the one this script came with)
#   --root DIR     install under DIR (the user into DIR/etc/passwd and DIR/etc/group); writes nothing
#                  outside DIR and starts nothing (for images and tests)
#   --no-start     install, but neither enable nor start the service
#   --uninstall    remove the binary and the unit; keep the data, the settings and the user
#   --insecure-skip-signature
#                  install without checking the signature where neither openssl 3 nor ssh-keygen is there
set -eu

# Written in by `npm run release` (scripts/release.ts).
RELEASE_URL='@BASE_URL@'
RELEASE_PUBLIC_KEY='@PUBLIC_KEY_PEM@'
# The same key as an OpenSSH allowed-signers line, for ssh-keygen -Y verify.
RELEASE_SSH_KEY='@PUBLIC_KEY_SSH@'

DOMAIN=
VERSION=
FROM=
ROOT=
START=1
UNINSTALL=0
INSECURE=0

say() { printf '%s\n' "$*" >&2; }
die() {
  say "install.sh: $*"
  exit 1
}
value() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }

while [ $# -gt 0 ]; do
  case "$1" in
  --domain) value "$@"; DOMAIN=$2; shift 2 ;;
  --version) value "$@"; VERSION=$2; shift 2 ;;
  --from) value "$@"; FROM=$2; shift 2 ;;
  --root) value "$@"; ROOT=$2; shift 2 ;;
  --no-start) START=0; shift ;;
  --uninstall) UNINSTALL=1; shift ;;
  --insecure-skip-signature) INSECURE=1; shift ;;
  -h | --help)
    say "usage: install.sh [--domain D] [--version V] [--from URL] [--root DIR] [--no-start] [--uninstall] [--insecure-skip-signature] (docs/deploy.md)"
    exit 0
    ;;
  *) die "unknown option $1 (see --help)" ;;
  esac
done
# Written into the settings file as a line of its own: nothing but a host name may go there.
case $DOMAIN in
*[!A-Za-z0-9.-]*) die "--domain takes one host name (letters, digits, dots and hyphens), such as forms.example.com" ;;
esac
case $VERSION in
*[!A-Za-z0-9.-]*) die "--version takes a version such as 1.4.2" ;;
esac

if [ -n "$ROOT" ]; then
  START=0
  mkdir -p "$ROOT"
  ROOT=$(cd "$ROOT" && pwd)
elif [ "$(id -u)" != 0 ]; then
  die "run it as root (curl … | sudo sh), or with --root DIR"
fi

BIN_DIR=$ROOT/usr/local/bin
BIN=$BIN_DIR/formsvc
UNIT=$ROOT/etc/systemd/system/formsvc.service
ENV_DIR=$ROOT/etc/formsvc
ENV_FILE=$ENV_DIR/formsvc.env
DATA=$ROOT/var/lib/formsvc
HAS_SYSTEMD=0
[ -z "$ROOT" ] && command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ] && HAS_SYSTEMD=1

if [ "$UNINSTALL" = 1 ]; then
  if [ "$HAS_SYSTEMD" = 1 ]; then systemctl disable --now formsvc 2>/dev/null || true; fi
  rm -f "$BIN" "$BIN.previous" "$UNIT"
  if [ "$HAS_SYSTEMD" = 1 ]; then systemctl daemon-reload; fi
  say "formsvc removed. Kept: $DATA (the database and backups), $ENV_FILE and the user formsvc."
  exit 0
fi

case $(uname -s) in
Linux) OS=linux ;;
Darwin) OS=darwin ;;
*) die "no formsvc build for $(uname -s)" ;;
esac
case $(uname -m) in
x86_64 | amd64) ARCH=x64 ;;
aarch64 | arm64) ARCH=arm64 ;;
*) die "no formsvc build for $(uname -m)" ;;
esac
NAME=formsvc-$OS-$ARCH

BASE=${FROM:-$RELEASE_URL}
case $BASE in
http://* | https://*) ;;
*) die "no release address: pass --from URL" ;;
esac
BASE=${BASE%/}
[ -n "$VERSION" ] && BASE=$BASE/$VERSION

fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 -o "$2" "$1" || die "cannot download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || die "cannot download $1"
  else
    die "needs curl or wget"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# Downloaded beside the binary's place, so that putting it there is a rename: never a half-written formsvc.
mkdir -p "$BIN_DIR"
WORK=$(mktemp -d "$BIN_DIR/.formsvc-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

# Checks manifest.json against the release key with the first verifier this machine has; with none, it stops
# unless told --insecure-skip-signature (docs/deploy.md, "How install.sh checks a release").
verify_manifest() {
  case $RELEASE_PUBLIC_KEY in
  -----BEGIN*) ;;
  *)
    [ "$INSECURE" = 1 ] || die "this install.sh carries no release key, so it cannot check what it downloads: use a release's install.sh (or pass --insecure-skip-signature): nothing was installed"
    say "this install.sh carries no release key: the manifest's signature is NOT checked (--insecure-skip-signature)"
    return 0
    ;;
  esac
  if openssl version 2>/dev/null | grep -q '^OpenSSL 3'; then
    fetch "$BASE/manifest.json.sig" "$WORK/manifest.json.sig"
    printf '%s\n' "$RELEASE_PUBLIC_KEY" >"$WORK/release.pem"
    openssl base64 -d -A -in "$WORK/manifest.json.sig" -out "$WORK/manifest.sig.bin" 2>/dev/null || die "manifest.json.sig is not base64: nothing was installed"
    openssl pkeyutl -verify -pubin -inkey "$WORK/release.pem" -rawin -in "$WORK/manifest.json" -sigfile "$WORK/manifest.sig.bin" >/dev/null 2>&1 ||
      die "the signature of $BASE/manifest.json does not match this release's key: nothing was installed"
    say "the manifest's signature matches this release's key (checked with $(openssl version | cut -d' ' -f1-2))"
  elif command -v ssh-keygen >/dev/null 2>&1; then
    fetch "$BASE/manifest.json.sshsig" "$WORK/manifest.json.sshsig"
    printf '%s\n' "$RELEASE_SSH_KEY" >"$WORK/allowed_signers"
    SAID=$(ssh-keygen -Y verify -f "$WORK/allowed_signers" -I formsvc-release -n formsvc-release -s "$WORK/manifest.json.sshsig" <"$WORK/manifest.json" 2>&1) ||
      die "the signature of $BASE/manifest.json does not match this release's key (ssh-keygen -Y verify, OpenSSH 8.1 or later, says: $(printf '%s' "$SAID" | tr '\n' ' ')): nothing was installed"
    say "the manifest's signature matches this release's key (checked with ssh-keygen)"
  elif [ "$INSECURE" = 1 ]; then
    say "neither openssl 3 nor ssh-keygen here: the manifest's signature is NOT checked (--insecure-skip-signature)"
  else
    die "cannot check the release's signature here: it needs openssl 3 or ssh-keygen (OpenSSH 8.1 or later; apt-get install openssh-client, apk add openssh-keygen), or --insecure-skip-signature to install without the check: nothing was installed"
  fi
}

# 0 when version $1 is newer than $2 (X.Y.Z, a pre-release before its release), as formsvc update orders them.
newer() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    pa = index(a, "-") ? substr(a, index(a, "-") + 1) : ""; pb = index(b, "-") ? substr(b, index(b, "-") + 1) : ""
    sub(/-.*/, "", a); sub(/-.*/, "", b); split(a, x, "."); split(b, y, ".")
    for (i = 1; i <= 3; i++) { if (x[i] + 0 > y[i] + 0) exit 0; if (x[i] + 0 < y[i] + 0) exit 1 }
    if (pa == pb) exit 1; if (pa == "") exit 0; if (pb == "") exit 1; exit !(pa > pb) }'
}

unxz_to() {
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" >"$2"; elif command -v unxz >/dev/null 2>&1; then unxz -c "$1" >"$2"; else die "needs xz to unpack the binary (apt-get install xz-utils; BusyBox's unxz does too)"; fi
}

field() { sed -n "s/^  \"$1\": \"\([^\"]*\)\",\$/\1/p" "$WORK/manifest.json"; }
artifact_field() { printf '%s\n' "$LINE" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }

fetch "$BASE/manifest.json" "$WORK/manifest.json"
verify_manifest

LINE=$(grep "\"name\":\"$NAME\"" "$WORK/manifest.json") || die "the release at $BASE has no $NAME"
WANT=$(artifact_field sha256)
RELEASE=$(field version)
EXPIRES=$(field expiresAt)
# The latest release's manifest vouches for being the latest until it expires: after that, the folder is stale
# or a mirror replays an old release. A version asked for by name is old on purpose.
if [ -z "$VERSION" ] && [ -n "$EXPIRES" ] && [ "$(printf '%s\n%s\n' "$EXPIRES" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" | sort | head -n1)" = "$EXPIRES" ]; then
  die "the manifest at $BASE expired on $EXPIRES (formsvc $RELEASE): the folder is stale or a mirror serves an old release; ask its publisher to renew it, or pass --version: nothing was installed"
fi
# A re-run against a folder that serves an older release than the one installed keeps it, unless --version asks.
if [ -z "$VERSION" ] && [ -x "$BIN" ] && INSTALLED=$("$BIN" --version 2>/dev/null) && newer "$INSTALLED" "$RELEASE"; then
  die "$BIN is formsvc $INSTALLED, newer than the release at $BASE ($RELEASE): nothing was changed (--version $RELEASE installs it all the same)"
fi
say "formsvc $RELEASE for $OS-$ARCH from $BASE"
XZ=$(artifact_field xz)
if [ -n "$XZ" ]; then
  case $XZ in *[!A-Za-z0-9._-]*) die "the manifest names an odd file $XZ" ;; esac
  fetch "$BASE/$XZ" "$WORK/$XZ"
  GOT=$(sha256 "$WORK/$XZ")
  [ "$GOT" = "$(artifact_field xzSha256)" ] || die "$XZ has SHA-256 $GOT, the manifest says $(artifact_field xzSha256): nothing was installed"
  unxz_to "$WORK/$XZ" "$WORK/$NAME" || die "$XZ does not unpack: nothing was installed"
else
  fetch "$BASE/$NAME" "$WORK/$NAME"
fi
GOT=$(sha256 "$WORK/$NAME")
[ "$GOT" = "$WANT" ] || die "$NAME has SHA-256 $GOT, the manifest says $WANT: nothing was installed"
chmod 0755 "$WORK/$NAME"

# The binary installs itself (formsvc install: the user, the data folder, the settings file, the unit, the
# start and the setup link), from here, beside the place it is put at by a rename.
set -- install
[ -z "$ROOT" ] || set -- "$@" --root "$ROOT"
[ -z "$DOMAIN" ] || set -- "$@" --domain "$DOMAIN"
[ "$START" = 1 ] || set -- "$@" --no-start
"$WORK/$NAME" "$@"
