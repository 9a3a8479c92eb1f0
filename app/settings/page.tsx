'use client';

import { SettingsPage } from '@/components/settings/SettingsPage';

export default function Settings() {
  return <SettingsPage />;
}
