/** What a domain event asks to be recorded as a Kubernetes Event (core/v1 Event's type, reason and message). */
export interface KubeEventData {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}
