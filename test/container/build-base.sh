#!/usr/bin/env bash
# Builds the local stand-in for `node:20-slim` that the container tests build
# the Containerfile on, where no image registry is reachable: a minimal
# Debian bookworm from Debian's own packages (mmdebstrap), with the Node
# binary and npm that run this suite copied in, and this machine's trusted
# certificate authorities (so npm in the build reaches the registry through
# the same TLS-inspecting proxy, if any). Kept in podman's store under the
# tag given; rebuilt only when that tag is missing.
#
#   test/container/build-base.sh TAG
set -euo pipefail
tag=${1:?usage: build-base.sh TAG}

if podman image exists "$tag"; then
  echo "base image $tag is already built"
  exit 0
fi

node_bin=$(command -v node)
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building base image $tag: mmdebstrap bookworm, $("$node_bin" --version)"
mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$work/rootfs.tar"
podman import --quiet "$work/rootfs.tar" "$tag-rootfs" >/dev/null

mkdir -p "$work/context"
cp "$node_bin" "$work/context/node"
cp -r "$npm_dir" "$work/context/npm"
cp "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" "$work/context/ca-certificates.crt"
cat >"$work/context/Containerfile" <<CONTAINERFILE
FROM $tag-rootfs
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --create-home node
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
CONTAINERFILE
podman build --quiet --tag "$tag" "$work/context" >/dev/null
podman rmi --force "$tag-rootfs" >/dev/null
echo "base image $tag built"
