#!/usr/bin/env bash
# Makes sure the machine can run the test suite: the PostgreSQL server binaries (for the
# throw-away cluster test/support/postgres-cluster.ts starts) and the postgres system user,
# Chromium for the browser tests (test/support/browser.ts), and a fresh build of the web app.
set -euo pipefail

readonly postgres_package='postgresql'
readonly postgres_user='postgres'

have_postgres_binaries() {
  compgen -G '/usr/lib/postgresql/*/bin/initdb' > /dev/null
}

running_as_root() {
  [[ "$(id -u)" -eq 0 ]]
}

# Installs one Debian package; apt's progress output runs to pages, so it is kept in a log and shown
# only on failure. Further arguments are passed to apt-get install.
install_package() {
  local package="$1"
  shift
  local apt_log
  apt_log="$(mktemp)"
  if ! {
    apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" "${package}"
  } > "${apt_log}" 2>&1; then
    echo "Installing '${package}' failed; last lines of apt output:" >&2
    tail -n 40 "${apt_log}" >&2
    rm -f "${apt_log}"
    return 1
  fi
  rm -f "${apt_log}"
}

install_postgres() {
  if ! running_as_root; then
    echo "The tests need the PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)." >&2
    echo "Install the Debian package '${postgres_package}' (sudo apt-get install ${postgres_package})," >&2
    echo "or set MERINO_TEST_POSTGRES_URL to the admin URL of an existing PostgreSQL server." >&2
    exit 1
  fi

  echo "Installing the '${postgres_package}' package for the test suite..."
  # The tests start their own cluster, so stop the package from creating and starting a
  # "main" cluster that would otherwise keep running on port 5432 after the tests.
  local cluster_config='/etc/postgresql-common/createcluster.conf'
  if [[ ! -e "${cluster_config}" ]]; then
    mkdir -p "$(dirname "${cluster_config}")"
    echo 'create_main_cluster = false' > "${cluster_config}"
  fi

  install_package "${postgres_package}" -o Dpkg::Options::=--force-confold || exit 1

  if ! have_postgres_binaries; then
    echo "Installed '${postgres_package}' but found no /usr/lib/postgresql/*/bin/initdb." >&2
    exit 1
  fi
}

ensure_postgres_user() {
  if id -u "${postgres_user}" > /dev/null 2>&1; then
    return
  fi
  # Only matters as root: then initdb and postgres must run as this user (they refuse root).
  if ! running_as_root; then
    return
  fi
  useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home \
    --shell /usr/sbin/nologin "${postgres_user}"
}

# Debian's build of Chromium made for automation: the browser tests cost a fifth to a quarter less CPU
# with it than with the full browser (docs/testing.md). test/support/browser.ts falls back to the
# full browser where only that is installed.
readonly chromium_package='chromium-headless-shell'
readonly chromium_binary='/usr/bin/chromium-headless-shell'
readonly full_chromium_package='chromium'
readonly full_chromium_binary='/usr/bin/chromium'

install_chromium() {
  echo "Installing the '${chromium_package}' package for the browser tests..."
  if install_package "${chromium_package}"; then
    return
  fi
  # A release of Debian without the headless shell still has the full browser.
  echo "Installing the '${full_chromium_package}' package instead..."
  install_package "${full_chromium_package}" || exit 1
}

ensure_chromium() {
  if [[ -n "${MERINO_TEST_CHROMIUM:-}" || -x "${chromium_binary}" ]]; then
    return
  fi
  if running_as_root; then
    install_chromium
  elif [[ ! -x "${full_chromium_binary}" ]]; then
    echo "The browser tests need Chromium at ${chromium_binary} or ${full_chromium_binary}." >&2
    echo "Install the Debian package '${chromium_package}' (sudo apt-get install ${chromium_package})," >&2
    echo "or set MERINO_TEST_CHROMIUM to the path of a Chromium or Chrome binary." >&2
    exit 1
  fi
}

if ! have_postgres_binaries; then
  install_postgres
fi
ensure_postgres_user

ensure_chromium

# The browser tests drive the app the server serves from web/build, so it must match the sources.
npm run --silent build:web > /dev/null
