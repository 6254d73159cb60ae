#!/bin/sh
# Prints the path of a wrapper that runs Neovim 0.10 from Debian trixie, unpacked under
# $PI_NVIM_CACHE (default /tmp/pi-lsp-nvim-trixie) with a private apt configuration: nothing
# is installed on the system. Debian bookworm (CI) ships 0.7.2; this lets the same tests run on
# a current release:
#
#   make -C editors/neovim test-current
#
# The wrapper starts nvim through trixie's own dynamic loader (its glibc is newer than
# bookworm's), sets VIMRUNTIME and puts the bundled treesitter parsers (usr/lib/nvim/parser:
# c, lua, markdown, markdown_inline, query, vim, vimdoc) on 'runtimepath': the compiled-in
# path is /usr/lib/nvim, which is not there, and without them the plugin's 0.9+ treesitter
# path would silently fall back to the 0.7 syntax path.
set -eu
dir=${PI_NVIM_CACHE:-/tmp/pi-lsp-nvim-trixie}
root="$dir/root"
wrapper="$dir/nvim"
if [ -x "$wrapper" ] && grep -q 'usr/lib/nvim' "$wrapper" && "$wrapper" --version >/dev/null 2>&1; then
  echo "$wrapper"
  exit 0
fi
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$root"
echo "deb http://deb.debian.org/debian trixie main" > "$dir/sources.list"
apt_opts="-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get -qq $apt_opts update >&2
cd "$dir/cache/archives"
# shellcheck disable=SC2086
apt-get -qq $apt_opts download neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 \
  libluajit-5.1-common libmsgpack-c2 libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 \
  lua-lpeg lua-luv >&2
for d in ./*.deb; do dpkg -x "$d" "$root"; done
cat > "$wrapper" <<WRAP
#!/bin/sh
VIMRUNTIME=$root/usr/share/nvim/runtime exec $root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \\
  --library-path $root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu $root/usr/bin/nvim \\
  --cmd 'set rtp+=$root/usr/lib/nvim' "\$@"
WRAP
chmod +x "$wrapper"
"$wrapper" --version | head -1 >&2
echo "$wrapper"
