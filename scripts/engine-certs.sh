#!/usr/bin/env bash
# A private CA and the certificates a secured OpenSearch needs (openssl only):
#   root-ca.pem          the CA: give it to the API and the indexer as OPENSEARCH_CA_FILE
#   root-ca-key.pem      the CA's key: keep it offline once the certificates are made
#   node.pem / node-key.pem    the node's certificate (HTTP and transport), for the host names given
#   admin.pem / admin-key.pem  the security plugin's admin (CN=corpsearch-admin), for its setup only
# Keys are PKCS#8 without a passphrase (what the security plugin reads), readable by the owner
# only. Certificates are valid for CERT_DAYS days (default 825).
#
#   bash scripts/engine-certs.sh deploy/certs opensearch-prod localhost 127.0.0.1
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: bash scripts/engine-certs.sh OUT_DIR HOST_OR_IP [HOST_OR_IP...]" >&2
  exit 2
fi
out=$1
shift
days=${CERT_DAYS:-825}
san=""
for host in "$@"; do
  if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then san+="IP:$host,"; else san+="DNS:$host,"; fi
done
san=${san%,}

mkdir -p "$out"
cd "$out"
umask 077
work=$(mktemp -d .engine-certs.XXXXXX)
trap 'rm -rf "$work"' EXIT

openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days "$days" \
  -keyout root-ca-key.pem -out root-ca.pem -subj "/O=corpsearch/CN=corpsearch engine CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

# issue NAME SUBJECT EXTENSIONS: NAME.pem and NAME-key.pem signed by the CA
issue() {
  openssl req -newkey rsa:2048 -nodes -keyout "$1-key.pem" -out "$work/$1.csr" -subj "$2" 2>/dev/null
  printf '%b' "$3" >"$work/$1.ext"
  openssl x509 -req -sha256 -days "$days" -in "$work/$1.csr" -CA root-ca.pem -CAkey root-ca-key.pem \
    -CAcreateserial -CAserial "$work/serial" -out "$1.pem" -extfile "$work/$1.ext" 2>/dev/null
}
# serverAuth for HTTPS, clientAuth too: nodes present it to each other on the transport port
issue node "/O=corpsearch/CN=corpsearch-node" \
  "subjectAltName=$san\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
issue admin "/O=corpsearch/CN=corpsearch-admin" \
  "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
# certificates are public; the keys stay owner-only
chmod 644 root-ca.pem node.pem admin.pem
echo "engine-certs: root-ca.pem, node.pem (for $san), admin.pem and their keys in $PWD"
