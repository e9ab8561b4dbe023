export {
  ephemeralPortRange,
  freePortPicker,
  freeTcpPort,
  isAddressInUse,
  pickWindow,
  type FreePortPicker,
  type PortRange,
} from './free-port.js';
