/**
 * Workflows, once Redq has them (the workflow issue: batches, chains and results). This
 * package is where the shop will use them:
 * <ul>
 * <li>a batch of invoice mails (for example a day's orders of one business customer) with
 * a callback that mails the customer a summary once every invoice of the batch has been
 * sent, whatever order they finish in;</li>
 * <li>a chain for a paid order: ask the partner to ship it, then mail the customer the
 * tracking number the partner answered with, each step starting only once the one before
 * has completed.</li>
 * </ul>
 * Until then the shop sends invoices one job each ({@code orders}) and asks the partner
 * to ship from the payment ({@code partners}).
 */
@NullMarked
package io.redq.sample.workflows;

import org.jspecify.annotations.NullMarked;
