import { TEXT } from "@daysync/shared";
import { BrandMark } from "../../../components/ui/brand-mark.tsx";

export function BrandLogo() {
  return (
    <span className="brand-logo">
      <BrandMark />
      <span className="brand-logo__name">{TEXT.productName}</span>
    </span>
  );
}
