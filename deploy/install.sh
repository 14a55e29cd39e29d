#!/bin/sh
# Installs formsvc on a Linux server with systemd (docs/deploy.md):
#
#   curl -fsSL https://releases.example.com/formsvc/install.sh | sudo sh -s -- --domain forms.example.com
#
# Downloads the binary for this machine and the release's manifest, checks the binary's SHA-256 against the
# manifest and the manifest's Ed25519 signature (with openssl 3, when it is there), then installs
# /usr/local/bin/formsvc, a system user formsvc, /var/lib/formsvc (0700: the database and backups/),
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
set -eu

# Written in by `npm run release` (scripts/release.ts).
RELEASE_URL='@BASE_URL@'
RELEASE_PUBLIC_KEY='@PUBLIC_KEY_PEM@'

DOMAIN=
VERSION=
FROM=
ROOT=
START=1
UNINSTALL=0

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
  -h | --help)
    say "usage: install.sh [--domain D] [--version V] [--from URL] [--root DIR] [--no-start] [--uninstall] (docs/deploy.md)"
    exit 0
    ;;
  *) die "unknown option $1 (see --help)" ;;
  esac
done

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

fetch "$BASE/manifest.json" "$WORK/manifest.json"
fetch "$BASE/manifest.json.sig" "$WORK/manifest.json.sig"
case $RELEASE_PUBLIC_KEY in
-----BEGIN*)
  if openssl version 2>/dev/null | grep -q '^OpenSSL 3'; then
    printf '%s\n' "$RELEASE_PUBLIC_KEY" >"$WORK/release.pem"
    openssl base64 -d -A -in "$WORK/manifest.json.sig" -out "$WORK/manifest.sig.bin" 2>/dev/null || die "manifest.json.sig is not base64"
    openssl pkeyutl -verify -pubin -inkey "$WORK/release.pem" -rawin -in "$WORK/manifest.json" -sigfile "$WORK/manifest.sig.bin" >/dev/null 2>&1 ||
      die "the signature of $BASE/manifest.json does not match this release's key: nothing was installed"
  else
    say "openssl 3 not found: the manifest's signature is not checked (the binary's SHA-256 is)"
  fi
  ;;
*) say "this install.sh carries no release key: the manifest's signature is not checked (the binary's SHA-256 is)" ;;
esac

LINE=$(grep "\"name\":\"$NAME\"" "$WORK/manifest.json") || die "the release at $BASE has no $NAME"
WANT=$(printf '%s\n' "$LINE" | sed -n 's/.*"sha256":"\([0-9a-f]*\)".*/\1/p')
RELEASE=$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' "$WORK/manifest.json")
say "formsvc $RELEASE for $OS-$ARCH from $BASE"
fetch "$BASE/$NAME" "$WORK/$NAME"
GOT=$(sha256 "$WORK/$NAME")
[ "$GOT" = "$WANT" ] || die "$NAME has SHA-256 $GOT, the manifest says $WANT: nothing was installed"
chmod 0755 "$WORK/$NAME"

FIRST=1
if [ -f "$BIN" ]; then
  FIRST=0
  if cmp -s "$BIN" "$WORK/$NAME"; then
    say "$BIN is formsvc $RELEASE already"
  else
    ln -f "$BIN" "$BIN.previous" 2>/dev/null || cp -p "$BIN" "$BIN.previous"
    mv -f "$WORK/$NAME" "$BIN"
    say "upgraded $BIN to formsvc $RELEASE (the one it replaced: $BIN.previous)"
  fi
else
  mv -f "$WORK/$NAME" "$BIN"
  say "installed $BIN"
fi

# The user formsvc: a system user that owns nothing but the data.
if [ -n "$ROOT" ]; then
  mkdir -p "$ROOT/etc"
  touch "$ROOT/etc/passwd" "$ROOT/etc/group"
  free_id() { awk -F: '{ used[$3] = 1 } END { for (i = 999; i >= 100; i--) if (!(i in used)) { print i; exit } }' "$1"; }
  grep -q '^formsvc:' "$ROOT/etc/group" || printf 'formsvc:x:%s:\n' "$(free_id "$ROOT/etc/group")" >>"$ROOT/etc/group"
  GID=$(awk -F: '$1 == "formsvc" { print $3 }' "$ROOT/etc/group")
  grep -q '^formsvc:' "$ROOT/etc/passwd" ||
    printf 'formsvc:x:%s:%s:formsvc:/var/lib/formsvc:/usr/sbin/nologin\n' "$(free_id "$ROOT/etc/passwd")" "$GID" >>"$ROOT/etc/passwd"
  USER_ID=$(awk -F: '$1 == "formsvc" { print $3 }' "$ROOT/etc/passwd")
else
  if ! id formsvc >/dev/null 2>&1; then
    useradd --system --user-group --home-dir /var/lib/formsvc --no-create-home --shell /usr/sbin/nologin formsvc
  fi
  USER_ID=$(id -u formsvc)
  GID=$(id -g formsvc)
fi

# The data: the database and the scheduled backups, readable by formsvc alone.
install -d -m 0700 "$DATA" "$DATA/backups"
if [ "$(id -u)" = 0 ]; then
  chown "$USER_ID:$GID" "$DATA" "$DATA/backups"
else
  say "not root: $DATA is not given to the user formsvc ($USER_ID)"
fi

# The settings, read by the unit; written once, kept on every later run.
install -d -m 0755 "$ENV_DIR"
if [ -f "$ENV_FILE" ]; then
  say "kept $ENV_FILE"
  [ -z "$DOMAIN" ] || grep -q "^FORMSVC_DOMAINS=$DOMAIN\$" "$ENV_FILE" || say "--domain $DOMAIN: set FORMSVC_DOMAINS in $ENV_FILE yourself"
else
  (
    umask 077
    {
      echo "# formsvc serve's settings (docs/cli.md lists every FORMSVC_* variable); install.sh keeps this file."
      echo "FORMSVC_DB=/var/lib/formsvc/formsvc.db"
      echo "FORMSVC_BACKUP_DIR=/var/lib/formsvc/backups"
      echo "FORMSVC_BACKUP_EVERY=24h"
      echo "FORMSVC_BACKUP_KEEP=7"
      if [ -n "$DOMAIN" ]; then
        echo "# HTTPS by itself: ports 80 and 443, a certificate from Let's Encrypt."
        echo "FORMSVC_DOMAINS=$DOMAIN"
        echo "FORMSVC_HOST=0.0.0.0"
        echo "# FORMSVC_ACME_EMAIL=you@example.com"
      else
        echo "# Behind Caddy or nginx on this machine (docs/deploy.md): loopback only."
        echo "FORMSVC_HOST=127.0.0.1"
        echo "FORMSVC_PORT=8080"
        echo "# FORMSVC_BASE_URL=https://forms.example.com"
        echo "# FORMSVC_TRUST_PROXY=true"
      fi
      echo "# FORMSVC_SMTP_URL=smtps://user:password@mail.example.com"
      echo "# FORMSVC_MAIL_FROM=Forms <forms@example.com>"
    } >"$ENV_FILE"
  )
  chmod 0600 "$ENV_FILE"
  say "wrote $ENV_FILE"
fi

# The unit, as the release carries it; with a domain, allowed to bind ports 80 and 443.
unit_text() {
  cat <<'FORMSVC_UNIT'
@UNIT@
FORMSVC_UNIT
}
mkdir -p "$(dirname "$UNIT")"
if grep -q '^FORMSVC_DOMAINS=.' "$ENV_FILE"; then
  unit_text | sed -e 's/^CapabilityBoundingSet=$/CapabilityBoundingSet=CAP_NET_BIND_SERVICE/' -e 's/^AmbientCapabilities=$/AmbientCapabilities=CAP_NET_BIND_SERVICE/' >"$WORK/formsvc.service"
else
  unit_text >"$WORK/formsvc.service"
fi
grep -q '^ExecStart=' "$WORK/formsvc.service" || die "this install.sh carries no unit: use the release's install.sh"
chmod 0644 "$WORK/formsvc.service"
mv -f "$WORK/formsvc.service" "$UNIT"

if [ "$START" = 0 ]; then
  say "not started (--root or --no-start): systemctl enable --now formsvc starts it"
  exit 0
fi
[ "$HAS_SYSTEMD" = 1 ] || die "no systemd here: installed, not started (start $BIN serve yourself)"
systemctl daemon-reload
systemctl enable formsvc >/dev/null 2>&1
systemctl restart formsvc
if [ "$FIRST" = 1 ]; then
  # The database is made by the service's first start: the link waits for it.
  i=0
  while [ $i -lt 30 ]; do
    if LINK=$(runuser -u formsvc -- "$BIN" dashboard link --db /var/lib/formsvc/formsvc.db 2>/dev/null); then
      say "formsvc $RELEASE is running. Open this link to make the dashboard's first user (it works once, within 15 minutes):"
      printf '%s\n' "$LINK"
      exit 0
    fi
    i=$((i + 1))
    sleep 1
  done
  say "formsvc started; journalctl -u formsvc shows its setup link"
else
  say "formsvc $RELEASE restarted (systemctl status formsvc)"
fi
