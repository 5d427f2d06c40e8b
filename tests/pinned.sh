# Sourced by tests/*/run.sh and tests/install.sh: throwaway environments for
# pinned third-party validators and clients, under target/ (nothing cached
# outside the project). Each is installed once and kept while its pins do
# not change.

# pinned_venv REQUIREMENTS DIR: a Python venv in DIR with exactly the pinned
# packages, rebuilt whenever the pins change; pip's cache stays off.
pinned_venv() {
  local requirements="$1" dir="$2"
  if ! cmp -s "$requirements" "$dir/requirements.txt" 2>/dev/null; then
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$dir/requirements.txt"
  fi
}

# pinned_node SOURCE_DIR DIR FILE...: the npm packages of SOURCE_DIR's
# package-lock.json installed in DIR (npm's cache beside it), reinstalled
# whenever the lockfile changes, with FILEs copied there so they resolve
# them.
pinned_node() {
  local source="$1" dir="$2"
  shift 2
  if ! cmp -s "$source/package-lock.json" "$dir/installed-lock.json" 2>/dev/null; then
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$source/package.json" "$source/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --silent --no-audit --no-fund --cache ../npm-cache)
    cp "$source/package-lock.json" "$dir/installed-lock.json"
  fi
  if [ "$#" -gt 0 ]; then cp "$@" "$dir/"; fi
}
