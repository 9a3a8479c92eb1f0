import { expect, type Locator, type Page } from '@playwright/test';

export interface ProviderForm {
  /** The radio's label in the provider list (components/settings/SettingsPage.tsx CHOICES). */
  provider: 'OpenAI-compatible' | 'Anthropic';
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutSeconds?: number;
  stream?: boolean;
  onFailure?: 'emergency' | 'leave';
}

/** Settings (`/settings`): the summary provider, its base URL, model, key, Test connection, Save. */
export class SettingsPage {
  readonly form: Locator;
  readonly connectionResult: Locator;
  readonly saved: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByTestId('summary-settings');
    this.connectionResult = page.getByTestId('connection-result');
    this.saved = page.getByTestId('settings-summary');
  }

  async goto(): Promise<void> {
    await this.page.goto('/settings');
    await expect(this.form).toBeVisible({ timeout: 30_000 });
  }

  async fill(f: ProviderForm): Promise<void> {
    await this.form.getByRole('radio', { name: new RegExp(`^${f.provider}`) }).check();
    await this.page.getByLabel('Base URL').fill(f.baseUrl);
    await this.page.getByLabel('Model', { exact: true }).fill(f.model);
    await this.page.locator('input#summary-key').fill(f.apiKey);
    if (f.timeoutSeconds !== undefined) await this.page.getByLabel('Timeout (seconds)').fill(String(f.timeoutSeconds));
    if (f.stream !== undefined) await this.page.getByLabel('Stream the reply (shows progress)').setChecked(f.stream);
    if (f.onFailure === 'leave') await this.page.getByLabel('Leave the range as it is').check();
    if (f.onFailure === 'emergency') await this.page.getByLabel(/Fall back to emergency compaction/).check();
  }

  async testConnection(): Promise<string> {
    await this.page.getByTestId('test-connection').click();
    await expect(this.connectionResult).toBeVisible({ timeout: 20_000 });
    return (await this.connectionResult.textContent()) ?? '';
  }

  async save(): Promise<void> {
    await this.page.getByTestId('save-settings').click();
    await expect(this.saved).toContainText('Saved.');
  }
}
