import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const run = promisify(execFile);

/**
 * The files a real API server needs to call the gateway's /validate over mutual TLS, made by openssl in `dir`:
 * a serving CA and the gateway's certificate (127.0.0.1), a client CA and the API server's client certificate.
 */
export interface WebhookPki {
  dir: string;
  /** The gateway's environment: HTTPS with the serving certificate, /validate only for the client CA's holders. */
  gatewayEnv(port: number): Record<string, string>;
  /** deploy/apiserver's admission configuration with its paths in `dir`: pass as --admission-control-config-file. */
  admissionConfigPath: string;
  /** deploy/validating-webhook.yaml with its Service swapped for the gateway on loopback at `port`, as JSON. */
  webhookOnLoopback(port: number): string;
}

/**
 * `deployDir` is the repository's deploy/ folder: its apiserver/ examples and validating-webhook.yaml are read.
 * `gatewayDnsNames`: more names for the gateway's certificate (`flotilla-gateway.flotilla-system.svc`, which the API
 * server verifies when it calls the webhook through the chart's Service).
 */
export async function webhookPki(
  dir: string,
  deployDir: string,
  opts: { gatewayDnsNames?: string[] } = {},
): Promise<WebhookPki> {
  const ssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  for (const ca of ['serving-ca', 'client-ca'])
    await ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${ca}`,
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
    );
  const issue = async (name: string, ca: string, cn: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    await ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    );
    await ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  await issue(
    'gateway',
    'serving-ca',
    '127.0.0.1',
    `subjectAltName=${['IP:127.0.0.1', 'DNS:localhost', ...(opts.gatewayDnsNames ?? []).map((n) => `DNS:${n}`)].join(',')}\nextendedKeyUsage=serverAuth\n`,
  );
  await issue('apiserver-client', 'client-ca', 'kube-apiserver', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    gatewayEnv: (port) => ({
      GATEWAY_API_HOST: '127.0.0.1',
      GATEWAY_API_PORT: String(port),
      GATEWAY_TLS_CERT_FILE: join(dir, 'gateway.crt'),
      GATEWAY_TLS_KEY_FILE: join(dir, 'gateway.key'),
      GATEWAY_TLS_CLIENT_CA_FILE: join(dir, 'client-ca.crt'),
    }),
    admissionConfigPath: admissionConfig(dir, deployDir),
    webhookOnLoopback: (port) => webhookOnLoopback(dir, deployDir, port),
  };
}

/**
 * deploy/apiserver's example files with their paths in `dir`: the API server presents apiserver-client.crt to every
 * webhook ("*": the gateway here is a URL on loopback, not the Service the example names).
 */
function admissionConfig(dir: string, deployDir: string): string {
  const example = (f: string) => readFileSync(join(deployDir, 'apiserver', f), 'utf8');
  const written = (file: string, text: string) => {
    if (!text.includes(dir)) throw new Error(`${file}: the example's paths were not replaced`);
    writeFileSync(file, text);
  };
  const kubeconfig = join(dir, 'webhook-kubeconfig.yaml');
  written(
    kubeconfig,
    example('webhook-kubeconfig.example.yaml')
      .replace('name: flotilla-gateway.flotilla-system.svc', 'name: "*"')
      .replaceAll('/etc/kubernetes/flotilla/webhook-client.', join(dir, 'apiserver-client.')),
  );
  const path = join(dir, 'admission.yaml');
  written(
    path,
    example('admission-configuration.example.yaml').replace(
      '/etc/kubernetes/flotilla/webhook-kubeconfig.yaml',
      kubeconfig,
    ),
  );
  return path;
}

function webhookOnLoopback(dir: string, deployDir: string, port: number): string {
  const wh = parse(readFileSync(join(deployDir, 'validating-webhook.yaml'), 'utf8')) as {
    metadata: { annotations?: unknown };
    webhooks: { clientConfig: unknown }[];
  };
  delete wh.metadata.annotations;
  for (const w of wh.webhooks)
    w.clientConfig = {
      url: `https://127.0.0.1:${port}/validate`,
      caBundle: readFileSync(join(dir, 'serving-ca.crt')).toString('base64'),
    };
  return JSON.stringify(wh);
}
