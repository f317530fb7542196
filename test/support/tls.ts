/**
 * A self-signed certificate for 127.0.0.1 that is its own CA: what a test's https receiver serves, and the text a
 * sender is told to trust (WEBHOOK_CA_FILE, `extraCa`). A day's validity: nothing keeps it longer.
 */
import selfsigned from "selfsigned";

export interface Certificate {
  key: string;
  cert: string;
}

export async function loopbackCertificate(commonName: string): Promise<Certificate> {
  const pems = await selfsigned.generate([{ name: "commonName", value: commonName }], {
    keySize: 2048,
    algorithm: "sha256",
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [{ name: "basicConstraints", cA: true }, { name: "subjectAltName", altNames: [{ type: 7 as const, ip: "127.0.0.1" }] }],
  });
  return { key: pems.private, cert: pems.cert };
}
