#!/usr/bin/env bash
# Makes the test certificates of this directory (committed; run again only to change them): a CA, certificates it
# signs (a server for localhost/127.0.0.1, a client, an expired server and client, a server for another host name)
# and a client signed by a CA nobody trusts. keytool makes and signs them; openssl writes the keys as PEM PKCS#8.
set -euo pipefail
cd "$(dirname "$0")"
P=changeit
KT=(keytool -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -storetype PKCS12 -storepass $P -keypass $P)
rm -f ./*.p12 ./*.pem ./*.key ./*.csr

ca() { # name cn
  "${KT[@]}" -genkeypair -alias "$1" -keyalg EC -groupname secp256r1 -dname "CN=$2" -ext bc:c -validity 36500 -keystore "$1.p12" 2>/dev/null
  "${KT[@]}" -exportcert -rfc -alias "$1" -keystore "$1.p12" -file "$1.pem" 2>/dev/null
}
signed() { # ca name cn san startdate validity
  "${KT[@]}" -genkeypair -alias "$2" -keyalg EC -groupname secp256r1 -dname "CN=$3" -validity 36500 -keystore "$2.p12" 2>/dev/null
  "${KT[@]}" -certreq -alias "$2" -keystore "$2.p12" -file "$2.csr" 2>/dev/null
  local ext=(-ext ku:c=digitalSignature,keyEncipherment -ext eku=serverAuth,clientAuth)
  [ -n "$4" ] && ext+=(-ext "san=$4")
  "${KT[@]}" -gencert -alias "$1" -keystore "$1.p12" -infile "$2.csr" -outfile "$2.crt" -rfc -startdate "$5" -validity "$6" "${ext[@]}" 2>/dev/null
  cat "$2.crt" "$1.pem" > "$2.pem"
  "${KT[@]}" -importcert -noprompt -alias "$1" -keystore "$2.p12" -file "$1.pem" 2>/dev/null
  "${KT[@]}" -importcert -alias "$2" -keystore "$2.p12" -file "$2.pem" 2>/dev/null
  "${KT[@]}" -delete -alias "$1" -keystore "$2.p12" 2>/dev/null
  openssl pkcs12 -in "$2.p12" -passin pass:$P -nocerts -nodes 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$2.key"
  rm -f "$2.csr" "$2.crt"
}
ca ca "jtick test CA"
ca rogue-ca "not trusted CA"
signed ca server localhost "dns:localhost,ip:127.0.0.1" -1d 36500
signed ca client "feed-sim" "" -1d 36500
signed ca expired-server localhost "dns:localhost,ip:127.0.0.1" -400d 30
signed ca expired-client "feed-sim" "" -400d 30
signed ca other-host "elsewhere.example" "dns:elsewhere.example" -1d 36500
signed rogue-ca rogue-client "rogue" "" -1d 36500
rm -f rogue-ca.p12 ca.p12
ls
