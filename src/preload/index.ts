import { contextBridge, ipcRenderer } from 'electron';
import { IPC } from '../main/channels';

// Named functions only: the renderer never sees ipcRenderer or a channel name.
const api: AtelierDesktopApi = {
  saveFile: (name, bytes) => ipcRenderer.invoke(IPC.saveFile, name, bytes),
  revealInFolder: (path) => ipcRenderer.invoke(IPC.revealInFolder, path),
  openSignIn: (loginId) => ipcRenderer.invoke(IPC.openSignIn, loginId),
  startDrag: (name, bytes) => ipcRenderer.invoke(IPC.startDrag, name, bytes),
  platform: process.platform,
};

contextBridge.exposeInMainWorld('atelier', api);
