import { create } from 'zustand';

export interface UiState {
  helpOpen: boolean;
  setHelpOpen: (open: boolean) => void;
}

export const useUiStore = create<UiState>()((set) => ({
  helpOpen: false,
  setHelpOpen: (helpOpen) => set({ helpOpen }),
}));
