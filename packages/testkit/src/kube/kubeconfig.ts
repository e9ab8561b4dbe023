import { readFile, writeFile } from 'node:fs/promises';

export interface KubeconfigSpec {
  clusterName: string;
  server: string;
  caCertPath: string;
  userName: string;
  clientCertPath: string;
  clientKeyPath: string;
}

/**
 * A kubeconfig with the certificates embedded (…-data), so the file alone is enough: it can be copied, mounted as a
 * Secret or loaded by @kubernetes/client-node without the certificate files next to it.
 */
export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<string> {
  const b64 = async (p: string) => (await readFile(p)).toString('base64');
  const [ca, cert, key] = await Promise.all([b64(spec.caCertPath), b64(spec.clientCertPath), b64(spec.clientKeyPath)]);
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${spec.clusterName}`,
    '  cluster:',
    `    server: ${spec.server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${JSON.stringify(spec.userName)}`,
    '  user:',
    `    client-certificate-data: ${cert}`,
    `    client-key-data: ${key}`,
    'contexts:',
    `- name: ${spec.clusterName}`,
    '  context:',
    `    cluster: ${spec.clusterName}`,
    `    user: ${JSON.stringify(spec.userName)}`,
    `current-context: ${spec.clusterName}`,
    '',
  ].join('\n');
  await writeFile(path, text, { mode: 0o600 });
  return path;
}
